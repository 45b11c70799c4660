#!/bin/sh
# Fake Android `pm` (and `cmd package`): lists the sim's packages and resolves their launcher
# activities. `pm list packages [FILTER]` prints "package:NAME" per installed package whose name
# contains FILTER; `resolve-activity --brief` prints two lines, the second the component in
# ComponentName.flattenToShortString form ("pkg/.Activity"), or "No activity found" (exit 0)
# (docs/android.md, cmd package resolve-activity).
SIM_TOOL=pm
. "$SIM_BIN/sim_lib.sh"
. "$SIM_BIN/sim_apps.sh"

case ${1-} in
  list)
    case ${2-} in
      packages)
        shift 2
        filter=
        for a in "$@"; do case $a in -*) ;; *) filter=$a ;; esac; done
        for p in $SIM_INSTALLED; do
          case $p in *"$filter"*) echo "package:$p" ;; esac
        done
        ;;
      *)
        echo "Error: unknown list type '${2-}'" >&2
        exit 255
        ;;
    esac
    ;;
  resolve-activity)
    shift
    pkg=
    brief=0
    for a in "$@"; do case $a in --brief) brief=1 ;; -*) ;; *) pkg=$a ;; esac; done
    if sim_activity "$pkg"; then
      case $A in "$pkg".*) short="$pkg/.${A#"$pkg".}" ;; *) short="$pkg/$A" ;; esac
      echo "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true"
      if [ "$brief" = 1 ]; then
        echo "$short"
      else
        printf 'ActivityInfo:\n  name=%s\n  packageName=%s\n' "$A" "$pkg"
      fi
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
