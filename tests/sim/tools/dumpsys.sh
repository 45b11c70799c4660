#!/bin/sh
# Fake Android `dumpsys SERVICE ...` for the services that reveal the focused app and screen.
SIM_TOOL=dumpsys
. "$SIM_BIN/sim_lib.sh"

case ${1-} in
  window | activity | display | input | power) cat "$S/dumpsys_$1" ;;
  '') echo "Currently running services:"; for s in activity display input power window; do echo "  $s"; done ;;
  *) echo "Can't find service: $1" >&2 ;;
esac
