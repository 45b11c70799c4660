#!/bin/sh
# Fake Android `wm`: prints the sim's physical and override size/density; `wm size WxH|reset`
# and `wm density N|reset` are applied by the sim after the command.
SIM_TOOL=wm
. "$SIM_BIN/sim_lib.sh"
. "$S/screen.sh"

case ${1-} in
  size)
    case ${2-} in
      '') printf '%s' "$sim_wm_size" ;;
      reset) ;;
      *x*) ;;
      *) echo "Error: bad size $2" >&2; exit 255 ;;
    esac
    ;;
  density)
    case ${2-} in
      '') printf '%s' "$sim_wm_density" ;;
      reset) ;;
      *[!0-9]*) echo "Error: bad density $2" >&2; exit 255 ;;
    esac
    ;;
  *)
    echo "usage: wm [size|density] [reset|WxH|DENSITY]" >&2
    exit 255
    ;;
esac
