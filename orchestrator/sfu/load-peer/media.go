package main

// The pre-encoded media a load participant sends: each simulcast layer's VP8 frames from an IVF file, and Opus
// packets from an Ogg file, read once into memory and played in a loop.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/pion/webrtc/v4/pkg/media/ivfreader"
	"github.com/pion/webrtc/v4/pkg/media/oggreader"
)

// The files are the harness's own, but bounded all the same: a loop of a few seconds at 360p is a few MB.
const maxFileBytes = 64 << 20
const maxFrames = 100_000

// videoLayer is one rid's frames; keyframes holds the indices of its keyframes, so a PLI is answered from the file.
type videoLayer struct {
	frames        [][]byte
	keyframes     []int
	frameTime     time.Duration
	width, height int
}

// bitrate is the layer's mean rate in bits per second (LiveKit's simulcast layers declare one).
func (l *videoLayer) bitrate() uint32 {
	bytes := 0
	for _, frame := range l.frames {
		bytes += len(frame)
	}
	return uint32(float64(bytes*8) / (l.frameTime.Seconds() * float64(len(l.frames))))
}

func checkedOpen(file string) (*os.File, error) {
	info, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() || info.Size() > maxFileBytes {
		return nil, fmt.Errorf("%s: not a regular file of at most %d bytes", file, maxFileBytes)
	}
	return os.Open(file)
}

func readIVF(file string) (*videoLayer, error) {
	f, err := checkedOpen(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	reader, header, err := ivfreader.NewWith(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if string(header.FourCC[:]) != "VP80" || header.TimebaseDenominator == 0 || header.TimebaseNumerator == 0 {
		return nil, fmt.Errorf("%s: not a VP8 IVF file with a time base", file)
	}
	layer := &videoLayer{
		frameTime: time.Duration(float64(time.Second) * float64(header.TimebaseNumerator) / float64(header.TimebaseDenominator)),
		width:     int(header.Width), height: int(header.Height),
	}
	for len(layer.frames) < maxFrames {
		frame, _, err := reader.ParseNextFrame()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		// VP8's frame tag: bit 0 of the first byte is 0 on a keyframe (RFC 6386 9.1).
		if len(frame) > 0 && frame[0]&1 == 0 {
			layer.keyframes = append(layer.keyframes, len(layer.frames))
		}
		layer.frames = append(layer.frames, frame)
	}
	if len(layer.frames) == 0 || len(layer.keyframes) == 0 || layer.keyframes[0] != 0 {
		return nil, fmt.Errorf("%s: no frames, or the first is not a keyframe", file)
	}
	return layer, nil
}

// nextKeyframe is the first keyframe after frame `at` (the first of the loop after the last).
func (l *videoLayer) nextKeyframe(at int) int {
	for _, k := range l.keyframes {
		if k > at {
			return k
		}
	}
	return 0
}

// opusPacket is one Ogg page's payload with its duration.
type opusPacket struct {
	payload  []byte
	duration time.Duration
}

func readOgg(file string) ([]opusPacket, error) {
	f, err := checkedOpen(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	reader, _, err := oggreader.NewWith(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var packets []opusPacket
	var lastGranule uint64
	for len(packets) < maxFrames {
		payload, header, err := reader.ParseNextPage()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		// The tags page and any page without new samples carry no audio.
		if header.GranulePosition <= lastGranule {
			continue
		}
		samples := header.GranulePosition - lastGranule
		lastGranule = header.GranulePosition
		packets = append(packets, opusPacket{payload: payload, duration: time.Duration(samples) * time.Second / 48000})
	}
	if len(packets) == 0 {
		return nil, fmt.Errorf("%s: no Opus pages", file)
	}
	return packets, nil
}
