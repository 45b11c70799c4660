#!/bin/sh
# Fake Android `pm`: lists the sim's packages and resolves their launcher activities.
SIM_TOOL=pm
. "$SIM_BIN/sim_lib.sh"
. "$SIM_BIN/sim_apps.sh"

case ${1-} in
  list)
    for p in $SIM_PACKAGES; do echo "package:$p"; done
    ;;
  resolve-activity)
    shift
    pkg=
    for a in "$@"; do case $a in -*) ;; *) pkg=$a ;; esac; done
    if sim_activity "$pkg"; then
      echo "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true"
      echo "$pkg/$A"
    else
      echo "No activity found"
    fi
    ;;
  path)
    if sim_activity "${2-}"; then echo "package:/system/app/${2}/base.apk"; else exit 1; fi
    ;;
  *)
    echo "Unknown command: ${1-}" >&2
    exit 255
    ;;
esac
