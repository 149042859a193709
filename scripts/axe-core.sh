# Sourced by scripts/test after scripts/curl-jq.sh (which makes sure curl is there): fetches
# axe-core, the accessibility checker the browser test runs in the page, from the npm
# registry once (a pinned version, checked against its published SHA-512), and exports the
# path of its `axe.min.js`.

AXE_CORE_VERSION=4.14.1
AXE_CORE_SHA512=1477dafa598d8d065f273d6af302aa203c02e83131707b7fa648cd41bd3d6b734f8c22a0dab86ee6a6f64b8afbe804b214d36db85a2826965edfb3a0b9d546b5
TURNPOST_AXE_CORE="$PWD/target/axe-core-$AXE_CORE_VERSION/axe.min.js"
if [ ! -s "$TURNPOST_AXE_CORE" ]; then
    echo "scripts/test: fetching axe-core $AXE_CORE_VERSION for the browser test's accessibility check" >&2
    axe_folder=$(dirname "$TURNPOST_AXE_CORE")
    mkdir -p "$axe_folder"
    curl -sSfL -o "$axe_folder/axe-core.tgz" \
        "https://registry.npmjs.org/axe-core/-/axe-core-$AXE_CORE_VERSION.tgz"
    echo "$AXE_CORE_SHA512  $axe_folder/axe-core.tgz" | sha512sum -c --quiet -
    tar -xzf "$axe_folder/axe-core.tgz" -C "$axe_folder" --strip-components=1 package/axe.min.js
    rm "$axe_folder/axe-core.tgz"
fi
export TURNPOST_AXE_CORE
