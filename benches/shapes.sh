#!/usr/bin/env bash
# Times capout against its natural peer (cat, GNU tail, ripgrep) on seven
# shapes of input, one row per case and shape, and says whether each
# ratio meets its goal.
#
# Usage: benches/shapes.sh [SIZE_MIB]
#
#   SIZE_MIB            size of each input in MiB (default 512, or
#                       $CAPOUT_BENCH_MIB)
#   CAPOUT_BENCH_RUNS   timed runs of each side of a row (default 3); the
#                       figure is the best, the sides alternate
#   CAPOUT_BENCH_REPS   runs per timing of the start-up row (default 300)
#   CAPOUT_BENCH_DIR    where the inputs are kept between runs (default
#                       <target>/bench-shapes); an input of the right size
#                       is reused, so a second run skips generating
#   CAPOUT_BENCH_BUILD  cargo flags of the build that is timed (default
#                       none: the release build that is shipped)
#   CAPOUT_BENCH_BIN    a capout executable to time instead of building
#                       one (an earlier build, to compare in one run)
#   CAPOUT_BENCH_ONLY   an extended regular expression: only the rows
#                       whose case and shape ("--collapse-cr ansi") it
#                       matches are timed, and only their inputs made
#                       (default: every row)
#
# The figure is CPU time, user + system, of the measured process alone
# (for a pipe, the reader: `cat` writes the same bytes for both sides), as
# /usr/bin/time reports it; the start-up row times a shell loop of REPS
# runs, loop included on both sides. The last column is capout's peak RSS
# in the run that was kept.
#
# The shapes: ascii (log lines), utf8 (log lines, a third of their words
# multi-byte), cjk (Chinese and Japanese prose), short (10-byte lines),
# long (100 KiB lines), ansi (coloured build output with `\r` progress
# frames), source (capout's own Rust source, repeated); for the rows of
# the estimator, --render and the transforms on the shapes of tools'
# output, also words (English prose), paths (compiler locations,
# tracebacks, `ls -l`, JSON lines), color (coloured lines without `\r`)
# and frames (`\r` progress frames without colour); and captures (the
# real terminal captures of crates/capout/tests/fixtures/render, repeated:
# apt, cargo, curl, git clone, npm; only for the --render rows) and json
# (one array of pretty-printed Pods as `kubectl get pods -o json` prints
# them, closed at the end: JSON to its end; only for the --json-items
# row).
#
# Needs bash, cargo, awk, coreutils and /usr/bin/time (Debian package
# `time`); ripgrep is installed under <target>/bench-tools when `rg` is
# not on PATH.
set -euo pipefail

size_mib=${1:-${CAPOUT_BENCH_MIB:-512}}
runs=${CAPOUT_BENCH_RUNS:-3}
reps=${CAPOUT_BENCH_REPS:-300}
only=${CAPOUT_BENCH_ONLY-}
read -r -a build_flags <<<"${CAPOUT_BENCH_BUILD-}"

if [[ ! $size_mib =~ ^[1-9][0-9]*$ ]]; then
    echo "shapes.sh: size must be a whole number of MiB, not '$size_mib'" >&2
    exit 2
fi
if [[ ! -x /usr/bin/time ]]; then
    echo "shapes.sh: needs /usr/bin/time (Debian package 'time')" >&2
    exit 2
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
target_dir=$(cargo metadata --format-version 1 --no-deps --manifest-path "$root/Cargo.toml" |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
if [[ -n ${CAPOUT_BENCH_BIN-} ]]; then
    capout=$(realpath "$CAPOUT_BENCH_BIN")
    build="$capout"
else
    echo "building capout (cargo build --release ${build_flags[*]}) ..." >&2
    cargo build --release --quiet "${build_flags[@]}" --manifest-path "$root/Cargo.toml"
    capout=$target_dir/release/capout
    build="cargo build --release ${build_flags[*]}"
fi

rg=$(command -v rg || true)
if [[ -z $rg ]]; then
    rg=$target_dir/bench-tools/bin/rg
    if [[ ! -x $rg ]]; then
        echo "installing ripgrep under $target_dir/bench-tools ..." >&2
        cargo install ripgrep --locked --quiet --root "$target_dir/bench-tools"
    fi
fi

data=${CAPOUT_BENCH_DIR:-$target_dir/bench-shapes}/$size_mib
mkdir -p "$data"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
load_before=$(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo unknown)
started=$SECONDS

# --- inputs --------------------------------------------------------------

# Each shape prints a seed of a few MiB from a fixed Park-Miller generator
# (exact in awk's doubles), so every machine writes the same bytes; the
# seed is doubled up to the size and cut to it.

# Log lines: a timestamp, a level, a worker and 2-21 words, one line in
# 500 long. `$2` is the share of words (in 1000s) taken from the
# multi-byte list.
log_seed() {
    LC_ALL=C awk -v want="$1" -v wide_per_mille="$2" 'BEGIN {
        seed = 42
        split("INFO INFO INFO DEBUG WARN ERROR", level, " ")
        split("request served cache miss hit retrying connection closed user id " \
              "timeout after bytes queue depth ok failed to open file error", word, " ")
        split("café → «main» größe ✓ 日本語 naïve Ωmega żółw ÅÄÖ 🚀 ﬁle", wide, " ")
        n = 0
        while (bytes < want) {
            n++
            line = sprintf("2024-05-01T12:%02d:%02d.%03dZ %-5s [worker-%d]", \
                int(n / 60000) % 60, int(n / 1000) % 60, n % 1000, level[1 + rnd(6)], rnd(16))
            words = n % 500 == 0 ? 600 : 2 + rnd(20)
            for (i = 0; i < words; i++)
                line = line " " (rnd(1000) < wide_per_mille ? wide[1 + rnd(12)] : word[1 + rnd(21)])
            print line
            bytes += length(line) + 1
        }
    }
    function rnd(k) { seed = (seed * 16807) % 2147483647; return seed % k }'
}

# Prose in Chinese and Japanese, with their punctuation, 10-60 characters
# a line.
cjk_seed() {
    LC_ALL=C awk -v want="$1" 'BEGIN {
        seed = 7
        n = split("日本語 文字 東京 大阪 中国 北京 上海 人工 知能 学習 処理 速度 " \
                  "記録 出力 入力 行 文章 漢字 平仮名 片仮名 ひらがな カタカナ です ます " \
                  "した ない こと もの 的 了 是 在 有 我们 他们 这个 那个 数据 文件", word, " ")
        split("、 。 ， 「 」 ！ ？", punct, " ")
        while (bytes < want) {
            line = ""
            words = 4 + rnd(20)
            for (i = 0; i < words; i++)
                line = line word[1 + rnd(n)] (rnd(5) == 0 ? punct[1 + rnd(7)] : "")
            print line
            bytes += length(line) + 1
        }
    }
    function rnd(k) { seed = (seed * 16807) % 2147483647; return seed % k }'
}

# Lines of 10 bytes: nine digits, one line in 1000 an error.
short_seed() {
    LC_ALL=C awk -v want="$1" 'BEGIN {
        for (n = 0; n * 10 < want; n++)
            if (n % 1000 == 999) printf "error%04d\n", n % 10000
            else printf "%09d\n", n
    }'
}

# Lines of 100 KiB of words.
long_seed() {
    LC_ALL=C awk -v want="$1" 'BEGIN {
        seed = 3
        split("alpha beta gamma delta epsilon zeta eta theta iota kappa", word, " ")
        while (bytes < want) {
            line = ""
            while (length(line) < 102399) line = line word[1 + rnd(10)] " "
            line = substr(line, 1, 102399)
            print line
            bytes += 102400
        }
    }
    function rnd(k) { seed = (seed * 16807) % 2147483647; return seed % k }'
}

# A coloured build: cargo's status words in bold colours, warnings with
# their source lines, and progress bars redrawn with `\r` and `ESC [K`.
ansi_seed() {
    LC_ALL=C awk -v want="$1" 'BEGIN {
        seed = 11
        e = sprintf("%c", 27)
        cr = sprintf("%c", 13)
        split("serde tokio regex memchr clap syn quote proc-macro2 libc rand", crate, " ")
        n = 0
        while (bytes < want) {
            n++
            c = crate[1 + rnd(10)]
            r = rnd(10)
            if (r < 5) {
                line = sprintf("%s[1m%s[32m   Compiling%s[0m %s v1.%d.%d", e, e, e, c, rnd(40), rnd(10))
            } else if (r < 7) {
                line = sprintf("%s[1m%s[33mwarning%s[0m%s[1m: unused variable: `x%d`%s[0m\n" \
                    "  %s[1m%s[34m-->%s[0m src/%s.rs:%d:%d\n" \
                    "   %s[1m%s[34m|%s[0m\n" \
                    "%s[1m%s[34m%d%s[0m %s[1m%s[34m|%s[0m     let x%d = compute(&input);", \
                    e, e, e, e, n, e, e, e, e, c, rnd(900), rnd(80), e, e, e, \
                    e, e, rnd(900), e, e, e, e, n)
            } else {
                line = ""
                done = rnd(300)
                for (f = 0; f < 8; f++) {
                    done += 1 + rnd(4)
                    bar = substr("=========================", 1, f * 3)
                    line = line sprintf("%s[1m%s[36m    Building%s[0m [%-25s] %d/400: %s%s[K%s", \
                        e, e, e, bar ">", done, c, e, cr)
                }
                line = line sprintf("%s[1m%s[32m    Finished%s[0m step %d", e, e, e, n)
            }
            print line
            bytes += length(line) + 1
        }
    }
    function rnd(k) { seed = (seed * 16807) % 2147483647; return seed % k }'
}

# Pods as `kubectl get pods -o json` prints its items, each of the same
# length (so that whole ones fill the size), two spaces in, with a comma
# after; the length of one goes to "$tmp/unit".
json_seed() {
    LC_ALL=C awk -v want="$1" -v unit_file="$tmp/unit" 'BEGIN {
        seed = 5
        split("Running Pending Running Running Succeeded", phase, " ")
        split("nginx:1.27 redis:7.2.4 envoy:v1.30 node:20.11 caddy:2.7.6", image, " ")
        n = 0
        while (bytes < want) {
            n++
            item = sprintf("  {\n    \"apiVersion\": \"v1\",\n    \"kind\": \"Pod\",\n    \"metadata\": {\n" \
                "      \"name\": \"web-7d4b9c8f6-%05x\",\n      \"namespace\": \"default\",\n" \
                "      \"uid\": \"3f0a2c1e-8b7d-4e6f-9a1b-%012x\",\n      \"resourceVersion\": \"%07d\",\n" \
                "      \"labels\": {\"app\": \"web\", \"pod-template-hash\": \"7d4b9c8f6\"}\n    },\n" \
                "    \"spec\": {\n      \"containers\": [\n        {\"name\": \"main\", \"image\": \"%-11s\", " \
                "\"ports\": [{\"containerPort\": %05d, \"protocol\": \"TCP\"}]}\n      ],\n" \
                "      \"nodeName\": \"node-%03d\"\n    },\n    \"status\": {\n      \"phase\": \"%-9s\",\n" \
                "      \"podIP\": \"10.244.%03d.%03d\",\n      \"startTime\": \"2024-05-01T12:%02d:%02dZ\"\n    }\n  },\n", \
                n % 1048576, n, 400000 + n % 1000000, image[1 + rnd(5)], 10000 + rnd(55536), rnd(1000), \
                phase[1 + rnd(5)], rnd(256), rnd(256), rnd(60), rnd(60))
            printf "%s", item
            bytes += length(item)
        }
        print length(item) > unit_file
    }
    function rnd(k) { seed = (seed * 16807) % 2147483647; return seed % k }'
}

# Prose of plain English words: sentences of 4-18 words, the first with
# a capital, some commas, lines wrapped before 80 columns.
words_seed() {
    LC_ALL=C awk -v want="$1" 'BEGIN {
        seed = 13
        n = split("the of and to in is that it for was on are as with his they at be this " \
                  "from have or by one had not but what all were when we there can an your " \
                  "which their said if do will each about how up out them then she many some " \
                  "so these would other into has more her two like him see time could no make " \
                  "than first been its who now people my made over did down only way find use " \
                  "may water long little very after words called just where most know", word, " ")
        line = ""
        while (bytes < want) {
            words = 4 + rnd(15)
            for (i = 0; i < words; i++) {
                w = word[1 + rnd(n)]
                if (i == 0) w = toupper(substr(w, 1, 1)) substr(w, 2)
                if (i == words - 1) w = w "."
                else if (rnd(9) == 0) w = w ","
                if (length(line) + length(w) + 1 > 78) {
                    print line
                    bytes += length(line) + 1
                    line = w
                } else {
                    line = line == "" ? w : line " " w
                }
            }
        }
    }
    function rnd(k) { seed = (seed * 16807) % 2147483647; return seed % k }'
}

# Paths and punctuation: compiler locations, tracebacks, ldd, ls -l and
# JSON lines, as build and test output prints them.
paths_seed() {
    LC_ALL=C awk -v want="$1" 'BEGIN {
        seed = 17
        split("src core caps render tokens text search tests lib util net http db", dir, " ")
        split("mod.rs main.rs lib.rs tail_lines.rs grid.rs __init__.py models.py index.js utils.ts", file, " ")
        split("libssl.so.3 libcrypto.so.3 libz.so.1 libc.so.6 libm.so.6 libpthread.so.0", lib, " ")
        while (bytes < want) {
            d = dir[1 + rnd(13)] "/" dir[1 + rnd(13)]
            f = file[1 + rnd(9)]
            r = rnd(6)
            if (r == 0) line = sprintf("%s/%s:%d:%d: warning: unused import: `std::io::{Read, Write}`", d, f, 1 + rnd(900), 1 + rnd(80))
            else if (r == 1) line = sprintf("  File \"/home/user/project/%s/%s\", line %d, in <module>", d, f, 1 + rnd(900))
            else if (r == 2) { l = lib[1 + rnd(6)]; line = sprintf("\t%s => /lib/x86_64-linux-gnu/%s (0x00007f%08x)", l, l, rnd(2147483647)) }
            else if (r == 3) line = sprintf("-rw-r--r-- 1 user user %7d May %2d 12:%02d ./%s/%s", rnd(999999), 1 + rnd(28), rnd(60), d, f)
            else if (r == 4) line = sprintf("{\"path\": \"%s/%s\", \"line\": %d, \"col\": %d, \"tags\": [\"a-b\", \"c_d\"]},", d, f, rnd(900), rnd(80))
            else line = sprintf("    --> %s/%s:%d:%d (#[cfg(test)] mod tests::{a, b}; => ok?)", d, f, rnd(900), rnd(80))
            print line
            bytes += length(line) + 1
        }
    }
    function rnd(k) { seed = (seed * 16807) % 2147483647; return seed % k }'
}

# Lines in colour, without `\r`: pytest's results, ripgrep's matches and
# a coloured `ls`, their SGR codes around words, paths and numbers.
color_seed() {
    LC_ALL=C awk -v want="$1" 'BEGIN {
        seed = 19
        e = sprintf("%c", 27)
        split("test_get_user test_post_item test_delete test_parse_args test_render test_cache_miss", test, " ")
        split("api models views cli utils cache", mod, " ")
        split("let value = compute(&input); return Err(error); fn main() { println!(hello); }", code, ";")
        while (bytes < want) {
            r = rnd(4)
            if (r == 0) {
                ok = rnd(10) > 0
                line = sprintf("tests/test_%s.py::%s %s[%sm%s%s[0m%s[32m [%3d%%]%s[0m", mod[1 + rnd(6)], \
                    test[1 + rnd(6)], e, ok ? 32 : 31, ok ? "PASSED" : "FAILED", e, e, rnd(101), e)
            } else if (r == 1) {
                line = sprintf("%s[0m%s[35msrc/%s.rs%s[0m:%s[0m%s[32m%d%s[0m:    %s[0m%s[1m%s[31m%s%s[0m(&input)", \
                    e, e, mod[1 + rnd(6)], e, e, e, 1 + rnd(900), e, e, e, e, "compute", e)
            } else if (r == 2) {
                line = sprintf("%s[01;34m%s%s[0m  %s[01;32mrun.sh%s[0m  %s[00mREADME.md%s[0m  %s[01;36mlink%s[0m", \
                    e, mod[1 + rnd(6)], e, e, e, e, e, e, e)
            } else {
                line = sprintf("%s[1m%s[33mwarning%s[0m%s[1m: %s%s[0m", e, e, e, e, code[1 + rnd(4)], e)
            }
            print line
            bytes += length(line) + 1
        }
    }
    function rnd(k) { seed = (seed * 16807) % 2147483647; return seed % k }'
}

# Progress frames redrawn with `\r`, without colour: curl, tqdm and
# docker pull, 8-40 frames a line, the last ended by a newline.
frames_seed() {
    LC_ALL=C awk -v want="$1" 'BEGIN {
        seed = 23
        cr = sprintf("%c", 13)
        bar = "########################################"
        while (bytes < want) {
            r = rnd(3)
            frames = 8 + rnd(33)
            layer = rnd(2147483647)
            line = ""
            for (f = 1; f <= frames; f++) {
                p = int(100 * f / frames)
                if (r == 0) frame = sprintf("%3d 12.3M %3d %4dk    0     0   %4dk      0  0:00:%02d --:--:--  0:00:%02d  %4dk", \
                    p, p, 40 * f, 100 + rnd(900), rnd(60), rnd(60), 100 + rnd(900))
                else if (r == 1) frame = sprintf("%3d%%|%-20s| %d/%d [00:%02d<00:%02d, %d.%02dit/s]", \
                    p, substr(bar, 1, int(p / 5)), f, frames, rnd(60), rnd(60), rnd(100), rnd(100))
                else frame = sprintf("%012x: Downloading [%-30s]  %d.%dMB/45.2MB", \
                    layer, substr(bar, 1, int(p * 3 / 10)) ">", int(45 * f / frames), rnd(10))
                line = line (f > 1 ? cr : "") frame
            }
            print line
            bytes += length(line) + 1
        }
    }
    function rnd(k) { seed = (seed * 16807) % 2147483647; return seed % k }'
}

captures_seed() {
    cat "$root"/crates/capout/tests/fixtures/render/*.real
}

source_seed() {
    # The sources in a fixed order, so the bytes depend on the commit alone.
    find "$root/crates" "$root/benches" -path "$root/crates/node/node_modules" -prune -o -name '*.rs' -print | LC_ALL=C sort | xargs cat
}

# Writes shape `$1` of `$size_mib` MiB to its file, unless it is there.
generate() {
    local shape=$1 file=$data/$1 seed_bytes=$((4 * 1024 * 1024))
    # json is whole items, a little less than the size.
    if [[ -f $file && ($shape == json || $(stat -c %s "$file") -eq $((size_mib * 1024 * 1024))) ]]; then
        return
    fi
    echo "generating $shape ($size_mib MiB) ..." >&2
    if [[ $shape == json ]]; then
        # Whole items between the array's brackets, the last one without
        # a comma: the stream is JSON to its end.
        local tail='  {"end": true}'$'\n'']'$'\n'
        json_seed "$seed_bytes" >"$tmp/seed"
        cp "$tmp/seed" "$file.part"
        while (($(stat -c %s "$file.part") < size_mib * 1024 * 1024)); do
            cat "$file.part" "$file.part" >"$tmp/next"
            mv "$tmp/next" "$file.part"
        done
        local unit body
        unit=$(cat "$tmp/unit")
        body=$(((size_mib * 1024 * 1024 - 2 - ${#tail}) / unit * unit))
        { printf '[\n'; head -c "$body" "$file.part"; printf '%s' "$tail"; } >"$tmp/next"
        rm "$file.part"
        mv "$tmp/next" "$file"
        return
    fi
    case $shape in
    ascii) log_seed "$seed_bytes" 0 ;;
    utf8) log_seed "$seed_bytes" 333 ;;
    cjk) cjk_seed "$seed_bytes" ;;
    short) short_seed "$seed_bytes" ;;
    long) long_seed "$seed_bytes" ;;
    ansi) ansi_seed "$seed_bytes" ;;
    words) words_seed "$seed_bytes" ;;
    paths) paths_seed "$seed_bytes" ;;
    color) color_seed "$seed_bytes" ;;
    frames) frames_seed "$seed_bytes" ;;
    source) source_seed ;;
    captures) captures_seed ;;
    esac >"$tmp/seed"
    cp "$tmp/seed" "$file.part"
    while (($(stat -c %s "$file.part") < size_mib * 1024 * 1024)); do
        cat "$file.part" "$file.part" >"$tmp/next"
        mv "$tmp/next" "$file.part"
    done
    truncate -s "${size_mib}M" "$file.part"
    mv "$file.part" "$file"
}

shapes=(ascii utf8 cjk short long ansi source)
# Plain words, punctuation, CJK, colour, `\r` frames, a mixed build log.
agent=(words paths cjk color frames ansi)

# --- timing --------------------------------------------------------------

fail() {
    echo "shapes.sh: failed: $1" >&2
    exit 1
}

# Prints the CPU time in ms, user + system, of the commands that the
# shell code `$2` runs, reading the file `$F` on stdin (`$1` = file), from
# `cat` through a pipe (`$1` = pipe) or as the code says (`$1` = none): bash's `times` in a subshell
# gives the time of its children, which `cat` is not. Exit status 1 is
# allowed: ripgrep's "no match".
cpu_once() {
    local mode=$1 code=$2 times status=0
    if [[ $mode == pipe ]]; then
        times=$(cat "$F" | (s=0 && eval "$code" >/dev/null || s=$? && times && exit "$s")) || status=$?
    elif [[ $mode == none ]]; then
        times=$( (s=0 && eval "$code" >/dev/null || s=$? && times && exit "$s")) || status=$?
    else
        times=$( (s=0 && eval "$code" <"$F" >/dev/null || s=$? && times && exit "$s")) || status=$?
    fi
    ((status <= 1)) || fail "$code (exit status $status)"
    # The second line: "0m0.120s 0m0.030s", the children's user and system.
    sed -n 2p <<<"$times" | awk '{
        split($1, u, /[ms]/); split($2, s, /[ms]/)
        printf "%.1f\n", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000
    }'
}

# capout, and capout under /usr/bin/time, which writes its peak RSS in
# KiB to $tmp/rss: the codes below call it as `$C`.
capout_plain() { "$capout" "$@"; }
capout_rss() { /usr/bin/time -f %M -o "$tmp/rss" "$capout" "$@"; }
C=capout_plain

# Prints capout's peak RSS in KiB in the shell code `$2` in mode `$1`.
peak_rss() {
    C=capout_rss
    cpu_once "$1" "$2" >/dev/null
    C=capout_plain
    tail -n 1 "$tmp/rss"
}

rows=()

# Adds the row of case `$1` on shape `$3` in mode `$2` (file, pipe or
# none: see cpu_once): the shell codes `$4` (capout) and `$5` (the peer)
# are timed `$runs` times each, alternating, after one untimed run of
# each that takes capout's peak RSS; the best CPU times are compared with
# goal `$6` (the most the ratio may be). Shapes after `$6` are made too,
# for a code that reads one of them itself.
row() {
    local label=$1 mode=$2 shape=$3 ours=$4 theirs=$5 goal=$6 i a b best_a='' best_b='' rss
    if [[ -n $only && ! "$label $shape" =~ $only ]]; then
        return
    fi
    if [[ $shape == small ]]; then
        generate ascii
        head -c 1024 "$data/ascii" >"$data/small"
    else
        generate "$shape"
    fi
    for extra in "${@:7}"; do
        generate "$extra"
    done
    F=$data/$shape
    rss=$(peak_rss "$mode" "$ours")
    cpu_once "$mode" "$theirs" >/dev/null
    for ((i = 0; i < runs; i++)); do
        a=$(cpu_once "$mode" "$ours")
        b=$(cpu_once "$mode" "$theirs")
        best_a=$(printf '%s\n' "$a" ${best_a:+"$best_a"} | sort -g | head -n 1)
        best_b=$(printf '%s\n' "$b" ${best_b:+"$best_b"} | sort -g | head -n 1)
    done
    rows+=("$(awk -v l="$label" -v s="$shape" -v a="$best_a" -v b="$best_b" -v g="$goal" -v m="$rss" 'BEGIN {
        r = b > 0 ? a / b : 0
        printf "| %-34s | %-6s | %9.1f | %9.1f | %5.2f | <= %-4s | %-3s | %7s |", l, s, a, b, r, g, \
            sprintf("%.2f", r) + 0 <= g ? "yes" : "no", m
    }')")
    echo "  done: $label, $shape" >&2
}

plain=(ascii utf8 cjk short long source)
rare_regex='conn?ection (reset|refused) by pe+r'
rare_fixed='connection reset by peer'

echo "timing, best of $runs alternating runs ..." >&2
# The codes are shell code that row evaluates, hence single quotes.
# shellcheck disable=SC2016
{
    for shape in ascii utf8 source; do
        row '-m 50 -e REGEX, rare' file "$shape" '$C -m 50 -e "$rare_regex"' '"$rg" -c "$rare_regex"' 1.0
    done
    row '-m 50 -e REGEX, frequent' file short '$C -m 50 -e "[37]\$"' '"$rg" -c "[37]\$"' 1.0
    for shape in ascii utf8 source; do
        row '-m 50 -F STR, rare' file "$shape" '$C -m 50 -F -e "$rare_fixed"' '"$rg" -c -F "$rare_fixed"' 1.0
    done
    for shape in ascii short; do
        row '--keep error -c 5000' file "$shape" '$C --keep error -c 5000' '"$rg" -c error' 1.1
    done
    for shape in "${plain[@]}"; do
        row '--strip-ansi, plain text' file "$shape" '$C --strip-ansi' cat 1.5
    done
    row '--strip-ansi, ANSI build output' file ansi '$C --strip-ansi' cat 6
    for shape in "${shapes[@]}"; do
        row '--collapse-cr' file "$shape" '$C --collapse-cr' cat 2
    done
    # --render against the two transforms that approximate it.
    for shape in ansi captures; do
        row '--render vs --strip-ansi --collapse-cr' file "$shape" '$C --render' '$C --strip-ansi --collapse-cr' 5
    done
    # The shapes of tools' output. The estimator against itself on plain
    # words of the same size: every byte estimated (--json prints the
    # total).
    for shape in "${agent[@]}"; do
        row '--tail-tokens 5000 --json vs words' file "$shape" '$C --tail-tokens 5000 --json' \
            '$C --tail-tokens 5000 --json <"$data/words"' 2 words
    done
    for shape in "${agent[@]}"; do
        row '--render vs strip+collapse, -c 5000' file "$shape" '$C --render -c 5000' \
            '$C --strip-ansi --collapse-cr -c 5000' 5
    done
    for shape in "${agent[@]}"; do
        case $shape in color | ansi) goal=6 ;; *) goal=2 ;; esac
        row '--strip-ansi --collapse-cr -c 5000' file "$shape" '$C --strip-ansi --collapse-cr -c 5000' cat "$goal"
    done
    for shape in "${shapes[@]}"; do
        row 'pipe: --tail-lines 500' pipe "$shape" '$C --tail-lines 500' 'tail -n 500' 0.8
    done
    # The cut of JSON reads all of the stream (it is JSON only if it is to
    # its end); --head-chars alone passes over what follows its 8000
    # characters.
    row '--json-items 50 --head-chars 8000' pipe json '$C --json-items 50 --head-chars 8000' '$C --head-chars 8000' 2
    row '-c 5000 --json, full scan' file ascii '$C -c 5000 --json' cat 1.2
    for shape in utf8 cjk; do
        row '-c 5000 --json, full scan' file "$shape" '$C -c 5000 --json' cat 1.7
    done
    row "start-up, 1 KiB x $reps" none small \
        'for ((i = 0; i < reps; i++)); do $C <"$data/small"; done' \
        'for ((i = 0; i < reps; i++)); do tail -c 5000 <"$data/small"; done' 1.2
}

# --- report --------------------------------------------------------------

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
echo
echo "capout $("$capout" --version | awk '{ print $2 }') ($build), $("$rg" --version | sed -n 1p)"
echo "inputs of ${size_mib} MiB, $(nproc --all) CPUs (${cpu:-unknown CPU}), CPU time (user+sys), best of $runs runs, $((SECONDS - started)) s"
echo "load average before: $load_before, after: $(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo unknown)"
echo
echo "| case ('pipe:' reads 'cat file \|')  | shape  | capout ms |  peer ms  | ratio | goal    | met | RSS KiB |"
echo "|------------------------------------|--------|-----------|-----------|-------|---------|-----|---------|"
printf '%s\n' "${rows[@]}"
