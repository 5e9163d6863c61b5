# tests/cli/model_lib.sh - sourced by the model_*.sh tests (after lib.sh).
command -v python3 >/dev/null || skip "no python3"

# ini_get FILE SECTION KEY: the value of KEY (inline comments stripped),
# or "-" when the section or the key is absent.
ini_get() {
	python3 - "$@" <<'PY'
import configparser, sys
c = configparser.ConfigParser(inline_comment_prefixes=(';', '#'), interpolation=None)
c.read(sys.argv[1])
try:
    print(c.get(sys.argv[2], sys.argv[3]))
except (configparser.NoSectionError, configparser.NoOptionError):
    print("-")
PY
}

# want FILE SECTION KEY VALUE
want() {
	v=$(ini_get "$1" "$2" "$3")
	[ "$v" = "$4" ] || fail "$1: [$2] $3 = '$v', want '$4'"
}
