#!/bin/bash
# collect --sample-rd (spatially hashed sampling of blocks, SHARDS): the
# scaled histograms of a cyclic sweep against its closed form, within a
# tolerance derived from the sampling; rate 1 against no sampling, bit for
# bit; bad rates refused; the run's rate stored and named by report, model
# and predict (docs/collector.md, "Sampled reuse distances").
source "$TESTLIB"
SRC=$SRC_PROGRAMS/patterns.c
K=16384 R=3 # 1 MiB of lines, three sweeps

# sampled DIR MODE RATE — collect patterns MODE K R at RATE, return its main profile
sampled() {
    collect_to "$WORK/$1" --sample-rd "$3" -- "$PROGRAMS/patterns" "$2" $K $R || echo "collect failed for $1" >&2
    main_profile "$WORK/$1"
}

# The sweep: exactly K cold touches, then K (R - 1) at distance K - 1.  Sampled
# at rate q = THRESHOLD / MODULUS (the profile's sample-rd line), S of the K
# lines are tracked: cold' = S / q, count' = S (R - 1) / q, distance (S - 1) / q.
# With an ideal hash S is binomial (K, q), so S / q has the relative standard
# deviation sqrt((1 - q) / (K q)): 2.3% at q = 0.1.  The tolerance is four of
# them (a fair hash misses it with probability 6e-5).
p=$(sampled s01 sweep 0.1)
q=$(awk '$1 == "sample-rd" { printf "%.10g", $2 / $3 }' "$p")
check "sample-rd line at 0.1: threshold round(0.1 * 2^24) of 2^24" "$(awk '$1 == "sample-rd" { print $2, $3 }' "$p")" \
      "1677722 16777216"
tol=$(awk -v q="$q" -v k=$K 'BEGIN { printf "%.4f", 4 * sqrt((1 - q) / (k * q)) }')
echo "rate $q: tolerance $tol (4 standard deviations of S/q relative to K)"
# hist 64: TOUCHES COLD then bin:count:sum of the one load
h=$(hist_at "$p" patterns.c "$(line_of LOAD:sweep "$SRC")" 64)
read -r touches cold rest <<<"$h"
count=$(awk -v r="$rest" 'BEGIN { n = split(r, b, " "); for (i = 1; i <= n; i++) { split(b[i], f, ":"); c += f[2] } print c }')
mean=$(awk -v r="$rest" 'BEGIN { n = split(r, b, " "); for (i = 1; i <= n; i++) { split(b[i], f, ":"); c += f[2]; s += f[3] }
                                 printf "%.1f", s / c }')
check "sweep 0.1: cold $cold within $tol of K = $K" "$(within "$cold" $K "$tol")" 1
check "sweep 0.1: reuses $count within $tol of K(R-1) = $((K * (R - 1)))" "$(within "$count" $((K * (R - 1))) "$tol")" 1
check "sweep 0.1: mean distance $mean within $tol of K-1 = $((K - 1))" "$(within "$mean" $((K - 1)) "$tol")" 1
check "sweep 0.1: touches are the accesses, K R within $tol" "$(within "$touches" $((K * R)) "$tol")" 1
# The estimate is one number S behind all three: cold' (R - 1) = count'.
check "sweep 0.1: reuses = cold (R-1), to the rounding" \
      "$(awk -v c="$cold" -v n="$count" -v r=$R 'BEGIN { d = c * (r - 1) - n; print (d <= r && d >= -r) ? 1 : 0 }')" 1

# Stride 16 B: 4 loads per line; the 3 that stay on the thread's last line
# are skipped by the fast path, known at distance 0 and counted exactly: 3 K R
# in bin 0 at 64 B, no estimate.  The first of each line is sampled as above.
p=$(sampled stride stride 0.1)
h=$(hist_at "$p" patterns.c "$(line_of LOAD:stride "$SRC")" 64)
check "stride 0.1: bin 0 holds exactly the 3 K R fast-path accesses" "$(tr ' ' '\n' <<<"$h" | grep '^0:')" \
      "0:$((3 * K * R)):0"

# Rate 1 is no sampling: the histograms are identical, bit for bit.  Those
# of the program's own code: ld.so's differ by a few distances between any
# two runs (its start depends on more than the program).
# program_hists PROFILE — the ins and hist lines of the patterns executable
program_hists() {
    awk '$1 == "module" && $3 ~ /\/patterns$/ { m = $2 }
         $1 == "ins" { mine = ($2 == m) } ($1 == "ins" || $1 == "hist") && mine' "$1"
}
collect_to "$WORK/exact" -- "$PROGRAMS/patterns" permutation 512 3 || echo "collect failed" >&2
collect_to "$WORK/one" --sample-rd 1 -- "$PROGRAMS/patterns" permutation 512 3 || echo "collect failed" >&2
a=$(program_hists "$(main_profile "$WORK/exact")" | md5sum)
b=$(program_hists "$(main_profile "$WORK/one")" | md5sum)
check "rate 1: the program's ins and hist lines identical to no sampling" "$a" "$b"
check "rate 1: no sample-rd line" "$(grep -c '^sample-rd' "$(main_profile "$WORK/one")")" 0
nh=$(program_hists "$(main_profile "$WORK/one")" | grep -c '^hist ')
check "rate 1: the program's histograms compared ($nh)" "$((nh >= 10))" 1

# Bad rates: refused before anything runs, with the problem and the fix.
for bad in 0 1.5 -0.1 abc 0x1 nan 1e-9 ""; do
    out=$("$AUGUR" collect --db "$WORK/bad.db" --sample-rd "$bad" -- "$PROGRAMS/patterns" sweep 8 1 2>&1)
    rc=$?
    case $bad in
    1e-9) want="--sample-rd '1e-9': below the smallest rate, 2^-24" ;;
    *) want="--sample-rd '$bad': give the share of blocks to sample, a number above 0 and at most 1" ;;
    esac
    check "rate '$bad' refused (status 2, message)" "$rc $(grep -cF -- "$want" <<<"$out")" "2 1"
done
check "no database made by a refused rate" "$(ls "$WORK/bad.db" 2>/dev/null | wc -l)" 0

# The run records its rate; report says so, in text and JSON.
run=$(sqlite3 "$WORK/test.db" "SELECT id FROM runs WHERE sample_rd IS NOT NULL ORDER BY id LIMIT 1")
check "runs.sample_rd = 1677722 / 2^24" "$(sqlite3 "$WORK/test.db" "SELECT sample_rd * 16777216 FROM runs WHERE id = $run")" \
      "1677722.0"
check "runs.sample_rd NULL for the exact and rate-1 runs" \
      "$(sqlite3 "$WORK/test.db" "SELECT count(*) FROM runs WHERE sample_rd IS NULL")" 2
"$AUGUR" report --db "$WORK/test.db" --run "$run" >"$WORK/report.txt" 2>&1
check "report names the sampling" \
      "$(grep -c 'histograms *reuse distances sampled at rate 0.1 (augur collect --sample-rd)' "$WORK/report.txt")" 1
"$AUGUR" report --db "$WORK/test.db" --run "$run" --format json >"$WORK/report.json"
check "report JSON: runs[0].sample_rd" "$(jq '.runs[0].sample_rd * 16777216 | round' "$WORK/report.json")" 1677722

# Interval runs are sampled as their run is, and say so: phases 40 3 calls
# exchange twice a step, so 6 intervals end in a call and 1 at the end.
"$AUGUR" collect --db "$WORK/iv.db" --sample-rd 0.1 --interval-functions exchange -- "$PROGRAMS/phases" 40 3 \
    >/dev/null 2>&1
check "interval runs and their run: all sampled at 1677722 / 2^24" \
      "$(sqlite3 "$WORK/iv.db" "SELECT count(*), sum(parent_id IS NOT NULL), min(sample_rd * 16777216),
                                       max(sample_rd * 16777216) FROM runs")" "8|7|1677722.0|1677722.0"

# Models fitted on sampled runs say so, and so do predictions from them.
db=$WORK/model.db
for k in 1024 2048 3072 4096; do
    "$AUGUR" collect --db "$db" --param K=$k --sample-rd 0.1 -- "$PROGRAMS/patterns" sweep $k 2 >/dev/null 2>&1
done
"$AUGUR" model --db "$db" >"$WORK/model.txt" 2>&1
check "model names each sampled run" \
      "$(grep -c 'augur model: run [0-9]*: reuse distances sampled at rate 0.1' "$WORK/model.txt")" 4
"$AUGUR" model --db "$db" --show >"$WORK/show.txt" 2>&1
unwrapped "$WORK/show.txt" >"$WORK/show.unwrapped"
check "model --show names each sampled run" \
      "$(grep -c '^  run [0-9]*: reuse distances sampled at rate 0.1 (augur collect --sample-rd)' "$WORK/show.unwrapped")" 4
"$AUGUR" model --db "$db" --show --format json >"$WORK/show.json" 2>/dev/null
check "model --show JSON: runs[].sample_rd" "$(jq -c '[.runs[].sample_rd * 16777216 | round] | unique' "$WORK/show.json")" \
      "[1677722]"
"$AUGUR" predict --db "$db" --param K=8192 --cache 32K >"$WORK/predict.txt" 2>&1
unwrapped "$WORK/predict.txt" >"$WORK/predict.unwrapped"
check "predict names each sampled run" \
      "$(grep -c '^  run [0-9]*: reuse distances sampled at rate 0.1 (augur collect --sample-rd): the histograms are scaled estimates' "$WORK/predict.unwrapped")" 4
"$AUGUR" predict --db "$db" --param K=8192 --format json >"$WORK/predict.json" 2>/dev/null
check "predict JSON: fitted_runs_counted[].sample_rd" \
      "$(jq '[.prediction.fitted_runs_counted[].sample_rd * 16777216 | round] | unique' -c "$WORK/predict.json")" "[1677722]"
finish
