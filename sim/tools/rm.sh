#!/bin/sh
# Fake Android `rm`: the host's rm, with /sdcard and /data/local/tmp mapped into the sim's root.
SIM_TOOL=rm
. "$SIM_BIN/sim_lib.sh"
sim_run_mapped rm 0 "$@"
