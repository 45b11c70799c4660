#!/bin/sh
# Fake Android `cat`: the host's cat, with /sdcard and /data/local/tmp mapped into the sim's root.
SIM_TOOL=cat
. "$SIM_BIN/sim_lib.sh"
sim_run_mapped cat 0 "$@"
