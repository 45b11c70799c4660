#!/bin/sh
# Fake Android `monkey -p PKG -c android.intent.category.LAUNCHER 1`: launches the package's
# launcher activity, the usual way to start an app by package name alone. The `monkey` script
# echoes "  bash arg: X" per argument on stdout; Monkey.java logs its arguments on stderr ("args:
# [...]", one ' arg: "X"' each, 'data="X"' per option value: docs/android.md, monkey). With no such
# activity, Monkey.getMainApps prints "** No activities found to run, monkey aborted." on stdout and
# run() returns -4, exit status 252:
# https://github.com/aosp-mirror/platform_development/blob/0ee6ec4a7371daf1e36b876c33b1f5cfc64bba4d/cmds/monkey/src/com/android/commands/monkey/Monkey.java
SIM_TOOL=monkey
. "$SIM_BIN/sim_lib.sh"
. "$SIM_BIN/sim_apps.sh"

for a in "$@"; do echo "  bash arg: $a"; done
list=
for a in "$@"; do list=${list:+$list, }$a; done
echo "args: [$list]" >&2
for a in "$@"; do echo " arg: \"$a\"" >&2; done
pkg=
while [ $# -gt 0 ]; do
  case $1 in
    -p) pkg=${2-}; echo "data=\"$pkg\"" >&2; shift ;;
    -c) echo "data=\"${2-}\"" >&2; shift ;;
    -s | --throttle | --pct-*) shift ;;
  esac
  [ $# -gt 0 ] && shift
done
if [ -z "$pkg" ] || ! sim_activity "$pkg"; then
  echo "** No activities found to run, monkey aborted."
  exit 252
fi
echo "Events injected: 1"
echo "## Network stats: elapsed time=12ms (0ms mobile, 0ms wifi, 12ms not connected)"
sim_event @launch "$pkg" ""
