#!/bin/sh
# Fake Android `cmd SERVICE ...`: routes the services whose shell commands the sim fakes.
SIM_TOOL=cmd
. "$SIM_BIN/sim_lib.sh"
. "$SIM_BIN/sim_apps.sh"

SIM_NORECORD=1
export SIM_NORECORD
svc=${1-}
[ $# -gt 0 ] && shift
case $svc in
  activity) exec "$SIM_BIN/am" "$@" ;;
  input) exec "$SIM_BIN/input" "$@" ;;
  window) exec "$SIM_BIN/wm" "$@" ;;
  package) exec "$SIM_BIN/pm" "$@" ;;
  '') echo "cmd: No service specified; use -l to list all running services." >&2; exit 255 ;;
  *) echo "cmd: Can't find service: $svc" >&2; exit 255 ;;
esac
