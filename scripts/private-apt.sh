# Sourced by scripts/get-godot4.sh and scripts/ensure-jq.sh (which set DIR first): a private
# apt configuration in $DIR for one Debian suite, so a newer suite's packages can be downloaded
# and unpacked into a private prefix without touching the system's sources, state or dpkg
# database, and without root.

# private_apt_setup SUITE: $DIR/etc/sources.list for SUITE on the mirror the system already
# talks to (deb822 "URIs:" or one-line "deb URL suite"), and the folders apt needs.
private_apt_setup() {
    MIRROR=$(
        {
            grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}'
            grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | awk '{print $2}'
        } | grep -v -e security -e '^$' | grep -i debian | head -n 1
    )
    MIRROR=${MIRROR:-http://deb.debian.org/debian}
    KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
    mkdir -p "$DIR/lists/partial" "$DIR/cache/archives/partial" "$DIR/etc/sources.list.d" \
        "$DIR/etc/preferences.d" "$DIR/debs" "$DIR/root"
    if [ -r "$KEYRING" ]; then
        echo "deb [signed-by=$KEYRING] $MIRROR $1 main" >"$DIR/etc/sources.list"
    else
        echo "deb $MIRROR $1 main" >"$DIR/etc/sources.list"
    fi
}

# private_apt TOOL ARGS...: apt-get or apt-cache on the private configuration; dpkg status
# stays the system's so apt can resolve, but nothing is installed.
private_apt() {
    tool=$1
    shift
    "$tool" -o "Dir::State=$DIR" -o "Dir::State::Lists=$DIR/lists" -o "Dir::Cache=$DIR/cache" \
        -o "Dir::Etc::SourceList=$DIR/etc/sources.list" \
        -o "Dir::Etc::SourceParts=$DIR/etc/sources.list.d" \
        -o "Dir::Etc::PreferencesParts=$DIR/etc/preferences.d" \
        -o "Dir::State::status=/var/lib/dpkg/status" \
        -o "APT::Sandbox::User=$(id -un)" -o "Debug::NoLocking=1" "$@"
}
