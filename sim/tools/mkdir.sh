#!/bin/sh
# Fake Android `mkdir`: the host's mkdir, with /sdcard and /data/local/tmp mapped into the sim's root.
SIM_TOOL=mkdir
. "$SIM_BIN/sim_lib.sh"
sim_run_mapped mkdir 0 "$@"
