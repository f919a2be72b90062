# train_lib.sh — sourced by machine_bench.sh and time_bench.sh: the training
# database of one kernel, shared by the benches that predict from it.
#
# train K — WORK/K/K (the kernel, gcc -O2 -g -march=x86-64-v2) and
# WORK/K/train.db: runs at ${SIZES[K]} and a model set this augur can read.
# Runs already there are kept; a model set fitted by an older augur (refused
# by `augur model --show`) is fitted again.  Needs AUGUR, ROOT, WORK, SIZES.
train() {
    local k=$1 dir=$WORK/$1
    mkdir -p "$dir"
    [ -x "$dir/$k" ] || gcc -O2 -g -march=x86-64-v2 -o "$dir/$k" "$ROOT/bench/model_kernels/$k.c" -lm
    "$AUGUR" model --db "$dir/train.db" --show >/dev/null 2>&1 && return
    local nruns=0 n
    [ -f "$dir/train.db" ] && nruns=$(sqlite3 "$dir/train.db" "SELECT count(*) FROM runs")
    if [ "$nruns" -lt "$(wc -w <<<"${SIZES[$k]}")" ]; then
        rm -f "$dir/train.db"
        for n in ${SIZES[$k]}; do
            "$AUGUR" collect --db "$dir/train.db" --param N=$n -- "$dir/$k" $n >/dev/null 2>&1 ||
                { echo "$k: augur collect at N=$n failed" >&2; return 1; }
        done
    fi
    "$AUGUR" model --db "$dir/train.db" --quiet >/dev/null || { echo "$k: augur model failed" >&2; return 1; }
}
