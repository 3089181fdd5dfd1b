#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hypergraph_same.sh 0 MPIEXEC-AND-FLAGS... -- APP [APP ARGS...]
# A method that takes the hypergraph as a graph (ZP_GRAPH_FROM_HYPERGRAPH,
# SCOTCHLB) must give the same answer when the application registers the
# grid as a hypergraph of two-pin nets (--hypergraph, no graph callbacks) as
# when it registers the grid graph: a two-pin net is one edge of weight 1.
# Compares the dumped "gid part" lists at 1-4 ranks.
# launcher_args.sh reads NP first; the rank counts are given per run below.
. "$(dirname "$0")/../common/launcher_args.sh"
tmp=$(mktemp -d)
status=0
for np in 1 2 3 4; do
  for how in graph hypergraph; do
    extra=""
    [ "$how" = hypergraph ] && extra=--hypergraph
    $launcher -n $np "$@" $extra --dump "$tmp/$np.$how" > "$tmp/$np.$how.log" 2>&1 ||
      { echo "FAIL: run at $np ranks with the $how"; cat "$tmp/$np.$how.log"; status=1; }
  done
  if [ -s "$tmp/$np.graph" ] && cmp -s "$tmp/$np.graph" "$tmp/$np.hypergraph"; then
    echo "ok: at $np ranks the hypergraph gives the graph's answer ($(wc -l < "$tmp/$np.graph") objects)"
  else
    echo "FAIL: at $np ranks the hypergraph's answer differs from the graph's"; status=1
  fi
done
rm -rf "$tmp"
exit $status
