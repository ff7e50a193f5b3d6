#!/usr/bin/env bash
# A scripted lead: shows what arrives in its inbox (results, idle notifications, plan requests) and
# the board, and answers a shutdown request by approving it. Plans are approved by the human with
# the multiplexer's keys (C-a a / C-a r).
set -u
me=${TEAMUX_MEMBER:?run me inside teamux (TEAMUX_MEMBER is not set)}
printf '\033[1;33m[%s]\033[0m watching the inbox; approve plans with C-a a, reject with C-a r\n' "$me"
teamux task list
while :; do
  out=$(teamux inbox read --as "$me" --wait 30 2>/dev/null)
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    printf '\033[2m✉\033[0m %s\n' "$line"
    if [[ $line == *" shutdown_request ["* ]]; then
      req=${line#* shutdown_request [}
      req=${req%%]*}
      teamux request approve "$req" --as "$me" >/dev/null
      printf '[%s] shutdown approved; bye\n' "$me"
      exit 0
    fi
  done <<< "$out"
done
