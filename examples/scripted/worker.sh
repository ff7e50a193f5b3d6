#!/usr/bin/env bash
# A scripted teammate that speaks the team protocol through the teamux CLI, with no model and no
# API key: it asks for plan approval when plan_required is set (TEAMUX_PLAN_REQUIRED=1), waits for the answer, claims ready
# tasks, "works" on them, reports a result and an idle notification to the lead, and answers a
# shutdown request by approving it and exiting.
set -u
me=${TEAMUX_MEMBER:?run me inside teamux (TEAMUX_MEMBER is not set)}
lead=${LEAD:-lead}
work_seconds=${WORK_SECONDS:-2}

say() { printf '\033[1;36m%s\033[0m %s\n' "[$me]" "$*"; }

# Read the inbox (waiting up to $1 seconds on a file watch); act on shutdown requests.
check_inbox() {
  local out line req
  out=$(teamux inbox read --as "$me" --wait "${1:-0}" 2>/dev/null)
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    printf '  \033[2m✉ %s\033[0m\n' "$line"
    if [[ $line == *" shutdown_request ["* ]]; then
      req=${line#* shutdown_request [}
      req=${req%%]*}
      teamux request approve "$req" --as "$me" --feedback "all my work is reported" >/dev/null
      say "shutdown approved; bye"
      exit 0
    fi
  done <<< "$out"
}

if [ "${TEAMUX_PLAN_REQUIRED:-0}" = 1 ]; then
  plan="1. claim the next ready task  2. do it in ${work_seconds}s  3. report the result to ${lead}"
  say "submitting my plan for approval"
  teamux plan submit --as "$me" "$plan" >/dev/null
  while :; do
    status=$(teamux plan status --as "$me")
    case "$status" in
      *"plan approved"*) say "plan approved"; break ;;
      *"plan rejected"*)
        say "plan rejected: ${status#*— }"
        plan="$plan (revised: ${status#*— })"
        say "resubmitting a revised plan"
        teamux plan submit --as "$me" "$plan" >/dev/null ;;
      *) say "waiting for approval…"; check_inbox 30 ;;
    esac
  done
fi

idle_sent=0
while :; do
  check_inbox 0
  if claimed=$(teamux task claim --as "$me" 2>/dev/null); then
    idle_sent=0
    id=${claimed#*claimed task }
    id=${id%%:*}
    say "working on task $id: ${claimed#*: }"
    for ((i = 1; i <= work_seconds; i++)); do
      printf '  … step %d/%d\n' "$i" "$work_seconds"
      check_inbox 1
    done
    teamux task complete "$id" --as "$me" --result "done by $me" >/dev/null
    teamux msg send --from "$me" --to "$lead" --type result "task $id done" >/dev/null
    say "completed task $id"
  else
    if [ "$idle_sent" = 0 ]; then
      teamux msg send --from "$me" --to "$lead" --type idle_notification "no ready task" >/dev/null
      say "idle; waiting for messages or new tasks"
      idle_sent=1
    fi
    check_inbox 5
  fi
done
