# Sourced by ./sluice and ./mvnw (POSIX sh): sets JAVA_HOME to a JDK 25+ or fails saying what to install.
#
# Looks at JAVA_HOME first, then the newest JDK 25+ (one with javac, for the build) under /usr/lib/jvm,
# /opt/java and ~/.sdkman. The machine's default `java` may be older: it is never used.
SLUICE_REQUIRED_JDK=25

# The major version of a java executable, or nothing when it does not run: from its JDK's `release`
# file when there is one (starting a JVM per candidate cost the launcher ~80 ms), else from -version.
sluice_java_major() {
  _v=""
  _release="${1%/bin/java}/release"
  if [ -f "$_release" ]; then
    _v="$(sed -n 's/^JAVA_VERSION="\([^"]*\)".*/\1/p' "$_release" | head -n 1)"
  fi
  [ -n "$_v" ] || _v="$("$1" -version 2>&1 | sed -n 's/.*version "\([^"]*\)".*/\1/p' | head -n 1)" || return 0
  [ -n "$_v" ] || return 0
  case "$_v" in 1.*) _v="${_v#1.}" ;; esac
  printf '%s\n' "${_v%%[.+-]*}"
}

# Prints the home of a JDK 25+, preferring JAVA_HOME, then the newest under the usual places.
sluice_find_jdk() {
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    _m="$(sluice_java_major "$JAVA_HOME/bin/java")"
    if [ -n "$_m" ] && [ "$_m" -ge "$SLUICE_REQUIRED_JDK" ]; then
      printf '%s\n' "$JAVA_HOME"
      return 0
    fi
    printf 'sluice: JAVA_HOME=%s is Java %s; looking for a JDK %s+ elsewhere\n' \
      "$JAVA_HOME" "${_m:-?}" "$SLUICE_REQUIRED_JDK" >&2
  fi
  _best="" _best_major=0
  _restore_noglob=""
  case "$-" in *f*) _restore_noglob=1; set +f ;; esac # mvnw runs with globbing off
  for _home in /usr/lib/jvm/* /opt/java/* /opt/java "$HOME"/.sdkman/candidates/java/*; do
    [ -x "$_home/bin/java" ] && [ -x "$_home/bin/javac" ] || continue
    [ -L "$_home" ] && continue # /usr/lib/jvm has aliases of the real directories
    _m="$(sluice_java_major "$_home/bin/java")"
    if [ -n "$_m" ] && [ "$_m" -ge "$SLUICE_REQUIRED_JDK" ] && [ "$_m" -gt "$_best_major" ]; then
      _best="$_home"
      _best_major="$_m"
    fi
  done
  [ -z "$_restore_noglob" ] || set -f
  [ -n "$_best" ] || return 1
  printf '%s\n' "$_best"
}

# Exports JAVA_HOME as a JDK 25+, or prints what to install and exits 1.
sluice_use_jdk() {
  if ! _jdk="$(sluice_find_jdk)"; then
    cat >&2 <<MSG
Sluice needs JDK $SLUICE_REQUIRED_JDK+. Install Temurin $SLUICE_REQUIRED_JDK (apt: temurin-$SLUICE_REQUIRED_JDK-jdk from Adoptium's repository,
or sdk install java $SLUICE_REQUIRED_JDK-tem) or set JAVA_HOME to a JDK $SLUICE_REQUIRED_JDK+.
MSG
    exit 1
  fi
  JAVA_HOME="$_jdk"
  export JAVA_HOME
}
