#!/bin/sh
# Fake Android `am`: resolves `am start` intents against the sim's apps, prints what the real
# ActivityManager prints (the lines docs/android.md lists under am start), and tells the sim which
# activity came to the front.
SIM_TOOL=am
. "$SIM_BIN/sim_lib.sh"
. "$SIM_BIN/sim_apps.sh"

sub=${1-}
[ $# -gt 0 ] && shift
case $sub in
  start | start-activity) ;;
  force-stop)
    sim_event @stop "${1-}"
    exit 0
    ;;
  broadcast)
    # Prints the same whether or not a receiver got it (docs/android.md, ADB Keyboard and ime). ADB
    # Keyboard's actions type into the focused field, but only while it listens.
    b_act= b_msg=
    while [ $# -gt 0 ]; do
      case $1 in
        -a) b_act=${2-}; shift ;;
        --es) if [ $# -ge 3 ]; then [ "$2" = msg ] && b_msg=$3; shift 2; fi ;;
        --ei | --eia | -e | --ez | --el | --ef) if [ $# -ge 3 ]; then shift 2; fi ;;
      esac
      [ $# -gt 0 ] && shift
    done
    echo "Broadcasting: Intent { act=$b_act flg=0x400000 (has extras) }"
    if sim_keyboard_listening; then
      case $b_act in
        ADB_INPUT_B64) sim_event @type "$(printf '%s' "$b_msg" | base64 -d 2>/dev/null)" ;;
        ADB_INPUT_TEXT) sim_event @type "$b_msg" ;;
      esac
    fi
    echo "Broadcast completed: result=0"
    exit 0
    ;;
  '')
    echo "Activity manager (activity) commands:" >&2
    exit 1
    ;;
  *)
    echo "Unknown command: $sub" >&2
    exit 255
    ;;
esac

act= dat= typ= cats= cmp= pkg= flg=
# Intent.parseCommandArgs: options with values, then a bare URI, component or package.
while [ $# -gt 0 ]; do
  opt=$1
  shift
  case $opt in
    -a) act=${1-} ;;
    -d) dat=${1-} ;;
    -t) typ=${1-} ;;
    -c) cats=${cats:+$cats,}${1-} ;;
    -n) cmp=${1-} ;;
    -p) pkg=${1-} ;;
    -f) flg=${1-} ;;
    -e | --es | --ei | --el | --ez | --ef | --ed | --eu | --ecn | --eia | --ela | --efa | --eda | --esa | --eial | --elal | --efal | --edal | --esal)
      [ $# -gt 0 ] && shift
      ;;
    --esn | --user | --display | --windowingMode | --activityType | -P | --start-profiler | --sampling | --attach-agent | --attach-agent-bind | -R | --task | -i | --receiver-permission | --callee) ;;
    -*) continue ;; # flags without a value: -W -S -D -N --activity-* --grant-*
    *:*) dat=$opt; continue ;;
    */*) cmp=$opt; continue ;;
    *) pkg=$opt; continue ;;
  esac
  [ $# -gt 0 ] && shift
done

# ComponentName.flattenToShortString: pkg/.Cls when the class lives in the package.
short_cmp() {
  sc_pkg=${1%%/*}
  sc_cls=${1#*/}
  case $sc_cls in .*) sc_cls=$sc_pkg$sc_cls ;; esac
  case $sc_cls in "$sc_pkg".*) printf '%s/%s' "$sc_pkg" ".${sc_cls#"$sc_pkg".}" ;; *) printf '%s/%s' "$sc_pkg" "$sc_cls" ;; esac
}

# Intent.toShortString field order: act cat dat typ flg pkg cmp.
intent() {
  in_s=
  [ -n "$act" ] && in_s="$in_s act=$act"
  [ -n "$cats" ] && in_s="$in_s cat=[$cats]"
  [ -n "$dat" ] && in_s="$in_s dat=$dat"
  [ -n "$typ" ] && in_s="$in_s typ=$typ"
  [ -n "$1" ] && in_s="$in_s flg=$1"
  [ -n "$pkg" ] && in_s="$in_s pkg=$pkg"
  [ -n "$cmp" ] && in_s="$in_s cmp=$(short_cmp "$cmp")"
  printf 'Intent {%s }' "$in_s"
}

if [ -z "$act$dat$typ$cats$cmp$pkg" ]; then
  echo "Error: No intent supplied" >&2
  exit 255
fi

launched_flags=0x10000000
if [ -n "$flg" ]; then launched_flags=$(printf '0x%x' $((flg | 0x10000000))); fi

echo "Starting: $(intent "$flg")"

target=
if [ -n "$cmp" ]; then
  c_pkg=${cmp%%/*}
  c_cls=${cmp#*/}
  case $c_cls in .*) c_cls=$c_pkg$c_cls ;; esac
  if sim_activity "$c_pkg" && [ "$c_cls" = "$A" ] && { [ -z "$pkg" ] || [ "$pkg" = "$c_pkg" ]; }; then
    target=$c_pkg
  else
    sim_fail "Error type 3" "Error: Activity class {$(short_cmp "$cmp")} does not exist."
  fi
elif [ "$act" = android.intent.action.VIEW ]; then
  case $dat in
    http://* | https://*)
      if [ -z "$pkg" ] || [ "$pkg" = "$SIM_BROWSER" ]; then target=$SIM_BROWSER; fi
      ;;
  esac
elif [ -n "$pkg" ] && [ -z "$dat" ] && { [ -z "$act" ] || [ "$act" = android.intent.action.MAIN ]; }; then
  sim_activity "$pkg" && target=$pkg
fi

if [ -z "$target" ]; then
  sim_fail "Error: Activity not started, unable to resolve $(intent "$launched_flags")"
fi
sim_event @launch "$target" "$dat"
exit 0
