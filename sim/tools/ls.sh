#!/bin/sh
# Fake Android `ls`: the host's ls, with /sdcard and /data/local/tmp mapped into the sim's root.
SIM_TOOL=ls
. "$SIM_BIN/sim_lib.sh"
sim_run_mapped ls 1 "$@"
