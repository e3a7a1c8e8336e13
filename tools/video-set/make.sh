#!/bin/sh
# Writes the synthetic edge cases of SOURCES.md, and the 1080p/4K scalings of bigbuckbunny.mp4
# when fetch.sh has run, into out/video-set/.
set -eu
cd "$(dirname "$0")/../../out/video-set" 2>/dev/null || { mkdir -p "$(dirname "$0")/../../out/video-set"; cd "$(dirname "$0")/../../out/video-set"; }
ff() { ffmpeg -nostdin -v error -y "$@"; }
moving="color=c=gray:s=320x240:r=10:d=2[bg];color=c=red:s=60x60:r=10:d=2[box];[bg][box]overlay=x='40+80*t':y=90"
ff -f lavfi -i "$moving" -c:v mpeg4 -q:v 2 moving.mp4
ff -i moving.mp4 -c copy -metadata:s:v:0 rotate=90 rotated.mp4
ff -f lavfi -i testsrc=s=321x239:r=10:d=1 -c:v ffv1 -pix_fmt yuv444p odd_yuv444.mkv
ff -f lavfi -i testsrc=s=320x240:r=10:d=1 -c:v ffv1 -pix_fmt yuv420p10le tenbit.mkv
ff -f lavfi -i testsrc=s=160x120:r=10:d=1 -vf "setpts='(N+if(gte(N,5),5,0))*0.1/TB'" -c:v mpeg4 vfr.mkv
cp moving.mp4 ./-dash.mp4
ff -f lavfi -i sine=d=1 audio.wav
ff -f lavfi -i testsrc=s=320x240:r=10:d=2 -c:v mpeg4 whole.mp4
head -c "$(($(wc -c < whole.mp4) / 2))" whole.mp4 > truncated.mp4 && rm whole.mp4
: > empty.mp4
if [ -f bigbuckbunny.mp4 ]; then
    ff -i bigbuckbunny.mp4 -an -vf scale=1920:1080 -c:v libx264 -crf 20 -preset veryfast bigbuckbunny_1080p.mp4
    ff -i bigbuckbunny.mp4 -an -vf scale=3840:2160 -c:v libx264 -crf 20 -preset veryfast bigbuckbunny_2160p.mp4
fi
ls -l
