#!/bin/bash
# test_docs_match.sh — the documentation says what the program does, where
# the two used to drift apart:
#   - every command `augur --help` lists has a section "### augur COMMAND" in
#     docs/user-guide.md, whose synopsis (the first code block of the
#     section) names exactly the options of `augur COMMAND --help` (its usage
#     lines and option list), --help aside;
#   - docs/database.md's schema version, in its title and in the meta table's
#     row, is the one augur writes into a new database.
source "$TESTLIB"
DOCS="$SRC_PROGRAMS/../../docs"
GUIDE="$DOCS/user-guide.md"

# long options in text on stdin, sorted, one per line
options() { grep -oE -- '--[a-z][a-z0-9-]*' | grep -vx -- '--help' | sort -u; }

# the usage lines and option list of `augur CMD --help`: "usage:" and its
# indented continuations up to the first blank line, then the lines that
# start an option ("  --name ..." or "  -h, --help")
help_options() {
    "$AUGUR" "$1" --help | awk '/^usage:/ { on = 1 } on && !NF { on = 0 } on { print; next }
                                /^  (-[a-z], )?--[a-z]/ { print $1, $2 }' | options
}

# the synopsis of "### augur CMD" in the user guide: its first code block
guide_options() {
    awk -v want="### augur $1" '$0 == want { in_section = 1; next }
                                in_section && /^##/ { exit }
                                in_section && /^```/ { if (fence++) exit; next }
                                in_section && fence == 1 { print }' "$GUIDE" | options
}

COMMANDS=$("$AUGUR" --help | awk '/^commands:/ { on = 1; next } on && !NF { exit } on { print $1 }')
check "augur --help lists the twelve commands" "$(echo $COMMANDS)" "collect import report structure model predict machine memspy export diff explore static"
for c in $COMMANDS; do
    check "user guide: a section for augur $c" "$(grep -cx "### augur $c" "$GUIDE")" 1
    help=$(help_options "$c")
    guide=$(guide_options "$c")
    check "augur $c --help has options" "$([ -n "$help" ] && echo yes)" yes
    check "augur $c: options in --help, missing from the user guide's synopsis" \
        "$(comm -23 <(echo "$help") <(echo "$guide") | paste -sd' ')" ""
    check "augur $c: options in the user guide's synopsis that --help does not have" \
        "$(comm -13 <(echo "$help") <(echo "$guide") | paste -sd' ')" ""
done

# ---- the database's schema version ----------------------------------------------
"$AUGUR" structure --db "$WORK/v.db" "$PROGRAMS/kernels_O2" >/dev/null
VERSION=$(sqlite3 "$WORK/v.db" "SELECT value FROM meta WHERE key = 'schema_version'")
check "a new database has a schema version" "$([ -n "$VERSION" ] && echo yes)" yes
check "docs/database.md's title has augur's schema version" \
    "$(head -n 1 "$DOCS/database.md")" "# The experiment database (schema version $VERSION)"
check "docs/database.md's meta table shows augur's schema version" \
    "$(grep -oE '`schema_version` \(`[0-9]+`' "$DOCS/database.md" | grep -oE '[0-9]+')" "$VERSION"
finish
