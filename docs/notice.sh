#!/usr/bin/env bash
# Makes docs/notice.svg, the picture in the README: Claude Code, set up by
# `capout init claude-code --user` in a throwaway home, runs `seq 100000`
# for a scripted model on 127.0.0.1 (docs/notice.py, over the harness
# tests' model.py) in a real terminal (tmux, 110x32), and the pane, with
# its colours, becomes the SVG.
#
#   bash docs/notice.sh [CAPOUT]
#
# CAPOUT is target/release/capout or target/debug/capout when not given.
# Claude Code is the one the harness tests install (run.sh there), or
# $CLAUDE; the keys typed are those of the version that run.sh pins.
set -euo pipefail
cd "$(dirname "$0")/.."

die() {
    echo "docs/notice.sh: $*" >&2
    exit 1
}

capout=${1:-}
if [[ -z $capout ]]; then
    for candidate in target/release/capout target/debug/capout; do
        if [[ -x $candidate ]]; then
            capout=$candidate
            break
        fi
    done
fi
[[ -n $capout && -x $capout ]] || die "no capout: run cargo build, or name it: bash docs/notice.sh CAPOUT"
capout=$(realpath "$capout")
claude=${CLAUDE:-target/harness/node_modules/.bin/claude}
[[ -x $claude ]] || die "no Claude Code at $claude: bash crates/capout/tests/harness/run.sh installs it, or set CLAUDE"
claude=$(realpath "$claude")
for tool in tmux python3; do
    command -v "$tool" >/dev/null || die "$tool is needed"
done

# Its real path: Claude Code trusts the project folder by that name.
home=$(realpath "$(mktemp -d "${TMPDIR:-/tmp}/capout-notice.XXXXXX")")
project=$home/project
model=
claude_pid=
# A tmux server of its own, so that neither the user's tmux nor its settings come in.
tm() { tmux -S "$home/tmux" -f /dev/null "$@"; }
cleanup() {
    tm kill-server 2>/dev/null || true
    # Claude Code writes its state as it goes: it is waited for (a few
    # seconds at most) before its home is removed.
    if [[ -n $claude_pid ]]; then
        for _ in $(seq 50); do
            kill -0 "$claude_pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$claude_pid" 2>/dev/null || true
    fi
    if [[ -n $model ]]; then
        kill "$model" 2>/dev/null || true
        wait "$model" 2>/dev/null || true
    fi
    # The output capout saved for the run, named by the model when it saw it.
    if [[ -s $home/saved ]]; then
        saved=$(cat "$home/saved")
        [[ $saved != */capout-*.log ]] || rm -f -- "$saved"
    fi
    rm -rf -- "$home"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# A pane, plain or (with -e) with its colours.
pane() { tm capture-pane -p "$@" -t notice 2>/dev/null; }
# Waits, polling the pane, until it shows a line that matches $1, for at
# most $2 seconds.
wait_for() {
    local deadline=$((SECONDS + $2))
    until pane | grep -Eq -- "$1"; do
        tm has-session -t notice 2>/dev/null || die "Claude Code ended before '$1' was shown"
        if ((SECONDS >= deadline)); then
            pane >&2 || true
            die "no '$1' in the pane after $2 s"
        fi
        sleep 0.2
    done
}

mkdir -p "$project" "$home/.claude"
# Claude Code past its first start: onboarding done, the API key and the
# project folder trusted, the dark theme, no notes about what is new.
version=$("$claude" --version | cut -d' ' -f1)
cat >"$home/.claude/.claude.json" <<EOF
{
  "hasCompletedOnboarding": true,
  "theme": "dark",
  "hasSeenAutoDefaultNotice": true,
  "lastReleaseNotesSeen": "$version",
  "customApiKeyResponses": {"approved": ["sk-notice"], "rejected": []},
  "projects": {"$project": {"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}}
}
EOF
env=(PATH="$PATH" HOME="$home" CLAUDE_CONFIG_DIR="$home/.claude" CLAUDE_CODE_TMPDIR="$home/tmp"
    SHELL=/bin/bash LANG=C.UTF-8 TERM=xterm-256color COLORTERM=truecolor
    ANTHROPIC_API_KEY=sk-notice DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_ERROR_REPORTING=1)
mkdir -p "$home/tmp"
(cd "$project" && env -i "${env[@]}" "$capout" init claude-code --user >/dev/null)

python3 docs/notice.py model "$home/saved" >"$home/url" &
model=$!
deadline=$((SECONDS + 30))
until [[ -s $home/url ]]; do
    kill -0 "$model" 2>/dev/null || die "the scripted model did not start"
    ((SECONDS < deadline)) || die "the scripted model gave no URL in 30 s"
    sleep 0.1
done
env+=(ANTHROPIC_BASE_URL="$(head -n1 "$home/url")")

# --verbose: Claude Code shows a tool's whole result in its main view,
# where it would otherwise fold it into "Ran 1 shell command".
tm new-session -d -s notice -x 110 -y 32 -c "$project" \
    env -i "${env[@]}" "$claude" --verbose --allowedTools Bash
# env runs Claude Code in its own process: the pane's.
claude_pid=$(tm display-message -p -t notice '#{pane_pid}')
wait_for 'shift\+tab to cycle|for shortcuts' 60
prompt='Count to 100000'
tm send-keys -t notice -l "$prompt"
wait_for "$prompt" 10
tm send-keys -t notice Enter
wait_for 'to read in pages' 120
notice='\.\.\. \(truncated, showing last 5000 chars; full output: [^ ]+\)'
if ! pane | grep -Eq -- "$notice"; then
    # Folded all the same: the transcript (ctrl+o) shows the whole result.
    tm send-keys -t notice C-o
    wait_for "$notice" 10
fi
# Claude Code redraws a little after the answer (its spinner, the tokens):
# the picture is taken once the pane stays the same for a second.
deadline=$((SECONDS + 20))
last=
while :; do
    shot=$(pane -e) || die "Claude Code ended before the picture was taken"
    [[ $shot != "$last" ]] || break
    ((SECONDS < deadline)) || die "the pane never settled"
    last=$shot
    sleep 1
done
pane | grep -Eq -- "$notice" || die "the notice went off the pane"
if grep -Fq -- "$home" <<<"$shot" || grep -Fq -- "$PWD" <<<"$shot"; then
    die "the pane names a path of this machine"
fi
python3 docs/notice.py svg <<<"$shot" >docs/notice.svg.new
mv docs/notice.svg.new docs/notice.svg
echo "docs/notice.svg: made"
