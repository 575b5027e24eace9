# Sourced, not run: where this machine's apt gets Debian from, for the scripts that debootstrap
# (swift-toolchain.sh, container-engine.sh). Package sources come from the machine's own
# configuration, so this repository names no archive host.
#
#   apt_source_uris [ETC_APT]   every URI of an enabled binary (`deb`) source, in apt's order:
#                               deb822 `*.sources` stanzas first, then one-line `*.list` entries
#   debian_archive NAME [ETC_APT]
#                               the first of those whose path ends in /NAME (`debian`,
#                               `debian-security`), without a trailing slash; exit 1 if none

apt_source_uris() {
  local etc=${1:-/etc/apt} file
  for file in "$etc"/sources.list.d/*.sources; do
    [[ -f "$file" ]] || continue
    # One stanza per blank-line-separated block; `Enabled: no` and deb-src-only ones are skipped.
    awk '
      function flush() {
        if (uris != "" && types ~ /(^|[ \t])deb([ \t]|$)/ && tolower(enabled) != "no") print uris
        uris = ""; types = ""; enabled = ""
      }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); next }
      tolower($1) == "uris:" { $1 = ""; uris = $0 }
      tolower($1) == "types:" { $1 = ""; types = $0 }
      tolower($1) == "enabled:" { enabled = $2 }
      END { flush() }
    ' "$file" | tr ' \t' '\n\n' | sed '/^$/d'
  done
  for file in "$etc/sources.list" "$etc"/sources.list.d/*.list; do
    [[ -f "$file" ]] || continue
    sed -nE 's/^[[:space:]]*deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+).*/\2/p' "$file"
  done
}

debian_archive() {
  local name=${1:?archive name, e.g. debian} uri
  while read -r uri; do
    if [[ "${uri%/}" == */"$name" ]]; then
      printf '%s\n' "${uri%/}"
      return 0
    fi
  done < <(apt_source_uris "${2:-/etc/apt}")
  return 1
}
