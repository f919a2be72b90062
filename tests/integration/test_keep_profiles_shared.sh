#!/bin/bash
# `augur collect --keep-profiles DIR` with DIR shared with others (mode 1777,
# as /tmp): each run writes into a private folder of its own in DIR, so
# links planted for the pids to come are not followed, a profile dropped in
# during the run is not stored, and two runs sharing DIR store disjoint
# processes.  The Valgrind tool itself creates its files exclusively, and
# folders others could rename things in are refused.
source "$TESTLIB"
DB=$WORK/shared.db
STARTED=$WORK/started

# as_root — whether this runs as root, who can make files of other users
# (the checks of those are skipped otherwise, and say so).
as_root() {
    [ "$(id -u)" = 0 ] && return 0
    echo "skip: $1 (needs root)"
    return 1
}

# shared NAME — a new folder $WORK/NAME that everyone may write in, as /tmp.
shared() {
    mkdir -m 1777 "$WORK/$1"
    echo "$WORK/$1"
}

# plant_links FOLDER NAME_PATTERN TARGET — a link FOLDER/NAME -> TARGET
# for each of the next 400 pids (%p in NAME_PATTERN), made by one process.
plant_links() {
    perl -e 'my ($dir, $pattern, $target) = @ARGV;
             open(my $f, "<", "/proc/sys/kernel/ns_last_pid") or die; my $last = <$f>;
             for my $p ($last + 1 .. $last + 400) {
                 (my $name = $pattern) =~ s/%p/$p/g;
                 symlink($target, "$dir/$name") or die "$dir/$name: $!";
             }' "$@"
}

# pids_of RUN — the pids stored for run RUN, sorted, on one line.
pids_of() { sqlite3 "$DB" "select pid from processes where run_id = $1 order by pid" | tr '\n' ' '; }

# Links planted in DIR for the pids to come, where the tool's profile and
# Valgrind's log were written, are not followed.
DIR=$(shared links)
echo precious >"$WORK/target"
plant_links "$DIR" augur.%p.prof.tmp "$WORK/target"
plant_links "$DIR" valgrind.%p.log "$WORK/log-target"
"$AUGUR" collect --db "$DB" --keep-profiles "$DIR" -- /bin/true 2>"$WORK/err"
check "planted links: the run is stored" "$?" 0
check "planted links: the profile's target untouched" "$(cat "$WORK/target")" precious
check "planted links: the log's target not created" "$(ls "$WORK/log-target" 2>/dev/null | wc -l)" 0
kept=$(sed -n 's/^augur: raw profiles kept in //p' "$WORK/err")
check "the run's profiles are kept in a new folder of DIR" "$(dirname "$kept")" "$DIR"
check "that folder is private" "$(stat -c %a "$kept")" 700
check "it holds the run's one profile" "$(ls "$kept"/augur.*.prof | wc -l)" 1
check "the kept profile imports into another database" \
    "$("$AUGUR" import --db "$WORK/import.db" "$kept"/augur.*.prof 2>/dev/null; sqlite3 "$WORK/import.db" 'select count(*) from processes')" 1

# A profile dropped into DIR and into the run's folder while it runs is not
# stored: not in DIR, not without the run's mark, not another user's.
DIR=$(shared drops)
"$AUGUR" collect --db "$WORK/other.db" --keep-profiles "$WORK/other" -- /bin/true 2>/dev/null
foreign=$(find "$WORK/other" -name 'augur.*.prof' | head -n 1)
foreign_pid=$(awk '$1 == "pid" { print $2; exit }' "$foreign")
"$AUGUR" collect --db "$DB" --keep-profiles "$DIR" -- "$PROGRAMS/procs" wait "$STARTED" 2 0 >/dev/null 2>"$WORK/err" &
augur_pid=$!
for _ in $(seq 600); do [ -e "$STARTED" ] && break; sleep 0.1; done
vg_pid=$(tool_child $augur_pid)
token=$(tr '\0' '\n' <"/proc/$vg_pid/cmdline" | sed -n 's/^--augur-run=//p')
run_dir=$(dirname "$(find "$DIR" -name "valgrind.$vg_pid.log")")
check "the run's folder is private while it runs" "$(stat -c %a "$run_dir")" 700
cp "$foreign" "$DIR/augur.$foreign_pid.prof"
cp "$foreign" "$run_dir/augur.$foreign_pid.prof"
foreign_user=0
if as_root "another user's profile"; then
    cp "$foreign" "$run_dir/augur.$foreign_pid.$token.prof"
    chown nobody "$run_dir/augur.$foreign_pid.$token.prof"
    foreign_user=1
    setpriv --reuid=nobody --regid=nogroup --clear-groups cp "$foreign" "$run_dir/augur.1.$token.prof" 2>/dev/null
    check "another user cannot write in the run's folder" "$?" 1
fi
wait $augur_pid
check "dropped profiles: the run is stored" "$?" 0
run=$(sqlite3 "$DB" 'select max(id) from runs')
check "dropped profiles: only the run's own process stored" "$(pids_of "$run")" "$vg_pid "
check "dropped profiles: each named as left out" \
    "$(grep -c "^augur: left out .*augur.$foreign_pid" "$WORK/err")" $((1 + foreign_user))
check "dropped profiles: another user's named as such" \
    "$(grep -c "augur.$foreign_pid.$token.prof: another user's" "$WORK/err")" $foreign_user

# Two runs sharing DIR at once store disjoint processes.
DIR=$(shared two)
"$AUGUR" collect --db "$DB" --keep-profiles "$DIR" -- "$PROGRAMS/procs" wait "$WORK/a" 3 0 >/dev/null 2>&1 &
a=$!
"$AUGUR" collect --db "$DB" --keep-profiles "$DIR" -- "$PROGRAMS/procs" wait "$WORK/b" 1 0 >/dev/null 2>&1 &
b=$!
wait $a
check "shared DIR: first run stored" "$?" 0
wait $b
check "shared DIR: second run stored" "$?" 0
check "shared DIR: two runs, one process each, none in both" \
    "$(sqlite3 "$DB" "select count(distinct run_id) || ' ' || count(*) || ' ' || count(distinct pid) from processes
                      where run_id > $run")" "2 2 2"

# The Valgrind tool run directly does not write through a link in its folder.
mkdir "$WORK/direct"
echo precious >"$WORK/target"
plant_links "$WORK/direct" augur.%p.prof.tmp "$WORK/target"
VALGRIND_LIB="$(dirname "$AUGUR")/vglib" valgrind -q --tool=augur --augur-out="$WORK/direct" /bin/true 2>"$WORK/err"
check "tool: a planted link's target untouched" "$(cat "$WORK/target")" precious
check "tool: says why it wrote nothing" "$(grep -c 'something is there already' "$WORK/err")" 1

# Folders where others could rename things are refused before the run.
expect_refused() {
    "$AUGUR" collect --db "$DB" --keep-profiles "$2" -- /bin/touch "$WORK/ran" >/dev/null 2>"$WORK/err"
    check "$1: status" "$?" 125
    check "$1: says why" "$(grep -c -- "$3" "$WORK/err")" 1
    check "$1: nothing ran" "$(ls "$WORK/ran" 2>/dev/null | wc -l)" 0
}
mkdir -m 0777 "$WORK/open"
expect_refused "world-writable folder" "$WORK/open" "others may write in $WORK/open (mode 0777)"
mkdir "$WORK/open/below"
expect_refused "folder in a world-writable one" "$WORK/open/below" "others may write in $WORK/open (mode 0777)"
if as_root "another user's folder"; then
    mkdir "$WORK/theirs" && chown nobody "$WORK/theirs"
    expect_refused "another user's folder" "$WORK/theirs" "belongs to another user"
    ln -s "$WORK/theirs" "$WORK/link"
    expect_refused "a link to another user's folder" "$WORK/link" "belongs to another user"
fi
TMPDIR=$WORK/open "$AUGUR" collect --db "$DB" -- /bin/touch "$WORK/ran" >/dev/null 2>"$WORK/err"
check "world-writable TMPDIR: refused" "$?" 125
check "world-writable TMPDIR: says so" "$(grep -c "temporary folder $WORK/open: others may write" "$WORK/err")" 1
finish
