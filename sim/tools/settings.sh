#!/bin/sh
# Fake Android `settings get|put NAMESPACE KEY [VALUE]`. Only secure default_input_method has a
# value (the sim's ime_selected file, shared with the fake `ime`); every other key reads "null",
# as an unset setting does.
SIM_TOOL=settings
. "$SIM_BIN/sim_lib.sh"

verb=${1-}
[ $# -gt 0 ] && shift
if [ "${1-}" = --user ]; then shift 2; fi
ns=${1-} key=${2-}
case $verb in
  get)
    if [ "$ns $key" = "secure default_input_method" ]; then cat "$S/ime_selected"; else echo null; fi
    ;;
  put)
    if [ "$ns $key" = "secure default_input_method" ]; then printf '%s\n' "${3-}" >"$S/ime_selected"; fi
    ;;
  *)
    echo "usage:  settings [--user <USER_ID> | current] get namespace key" >&2
    exit 255
    ;;
esac
