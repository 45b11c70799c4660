#!/bin/sh
# Fake Android `getprop [NAME [DEFAULT]]` reading the sim's property list.
SIM_TOOL=getprop
. "$SIM_BIN/sim_lib.sh"

if [ $# -eq 0 ]; then
  while IFS= read -r line; do printf '[%s]: [%s]\n' "${line%%=*}" "${line#*=}"; done <"$S/props"
  exit 0
fi
while IFS= read -r line; do
  if [ "${line%%=*}" = "$1" ]; then
    printf '%s\n' "${line#*=}"
    exit 0
  fi
done <"$S/props"
printf '%s\n' "${2-}"
