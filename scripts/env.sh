# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the scripts: lets OpenMPI run as root and with more ranks than
# cores, as on CI and small developer machines.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
