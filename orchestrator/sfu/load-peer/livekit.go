package main

// -join livekit: the participant joins a LiveKit room itself through LiveKit's Go SDK (server-sdk-go), which speaks
// LiveKit's signaling and owns its two connections. The server's URL and the participant's access token arrive in the
// first stdin line (the token is a secret: never on the command line). It publishes the same three layers and audio
// as with -join descriptions through the SDK's tracks (which tag each layer's rid and mid as a browser does), answers
// PLI/FIR from the file, and with subscribe receives every other publisher's tracks undecoded (with a speaker, only
// that participant's: LiveKit's subscriptions are then asked per track, as a speaker view's client does). The one counter counts
// both connections, first among their interceptors as with Pion alone.

import (
	"bufio"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/interceptor"
	"github.com/pion/rtcp"
	"github.com/pion/webrtc/v4"
	"github.com/pion/webrtc/v4/pkg/media"
)

// The SDK names each rid's quality (lksdk.NewLocalTrack gives f, h, q the rids the harness's browsers use).
var qualities = map[string]livekit.VideoQuality{"f": livekit.VideoQuality_HIGH, "h": livekit.VideoQuality_MEDIUM, "q": livekit.VideoQuality_LOW}

const joinTimeout = 10 * time.Second

func joinLivekit(c *counter, layers map[string]*videoLayer, audio []opusPacket, lines *bufio.Scanner, out *output) {
	join, ok := next(lines, out)
	if !ok || join.Type != "join" || join.URL == "" || join.Token == "" {
		fail(out, fmt.Errorf("stdin: the first line must be a join with a url and a token"))
	}
	var leaving atomic.Bool
	callback := lksdk.NewRoomCallback()
	callback.OnDisconnectedWithReason = func(reason lksdk.DisconnectionReason) {
		if !leaving.Load() {
			fail(out, fmt.Errorf("LiveKit disconnected it: %s", reason))
		}
	}
	callback.OnTrackSubscribed = func(track *webrtc.TrackRemote, _ *lksdk.RemoteTrackPublication, _ *lksdk.RemoteParticipant) {
		go readUndecoded(track)
	}
	if join.Subscribe && join.Speaker != "" {
		// Called under the SDK's room lock, for the tracks present at the join too: the request goes out from its own goroutine.
		callback.OnTrackPublished = func(publication *lksdk.RemoteTrackPublication, participant *lksdk.RemoteParticipant) {
			if participant.Identity() == join.Speaker {
				go func() {
					if err := publication.SetSubscribed(true); err != nil {
						out.send(message{Type: "error", Error: fmt.Sprintf("subscribing to the speaker's %s: %v", publication.Name(), err)})
					}
				}()
			}
		}
	}
	autoSubscribe := join.Subscribe && join.Speaker == ""
	room, err := lksdk.ConnectToRoomWithToken(join.URL, join.Token, callback, lksdk.WithAutoSubscribe(autoSubscribe),
		lksdk.WithConnectTimeout(joinTimeout), lksdk.WithInterceptors([]interceptor.Factory{c}), lksdk.WithIncludeDefaultInterceptors(true))
	if err != nil {
		fail(out, fmt.Errorf("joining LiveKit: %w", err))
	}
	out.send(message{Type: "state", PC: "room", State: "connected"})
	done := func() bool { return leaving.Load() }
	if err := publishLivekit(room.LocalParticipant, layers, audio, done); err != nil {
		fail(out, fmt.Errorf("publishing to LiveKit: %w", err))
	}
	go reportCounts(c, out)
	for in, more := next(lines, out); more; in, more = next(lines, out) {
		fail(out, fmt.Errorf("stdin: unexpected %q after the join", in.Type))
	}
	leaving.Store(true)
	room.Disconnect()
}

// publishLivekit publishes the layers as one simulcast track and the audio as another, and starts playing them.
func publishLivekit(participant *lksdk.LocalParticipant, layers map[string]*videoLayer, audio []opusPacket, done func() bool) error {
	var tracks []*lksdk.LocalTrack
	for _, rid := range rids {
		layer := layers[rid]
		player := &layerPlayer{layer: layer}
		track, err := lksdk.NewLocalTrack(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP8, ClockRate: 90000},
			lksdk.WithSimulcast("load", &livekit.VideoLayer{Quality: qualities[rid], Width: uint32(layer.width), Height: uint32(layer.height), Bitrate: layer.bitrate()}),
			lksdk.WithRTCPHandler(func(packet rtcp.Packet) {
				switch packet.(type) {
				case *rtcp.PictureLossIndication, *rtcp.FullIntraRequest:
					player.askKeyframe()
				}
			}))
		if err != nil {
			return err
		}
		tracks = append(tracks, track)
		go player.play(func(sample media.Sample) error { return track.WriteSample(sample, nil) }, done)
	}
	top := layers[rids[0]]
	if _, err := participant.PublishSimulcastTrack(tracks, &lksdk.TrackPublicationOptions{
		Name: "video", Source: livekit.TrackSource_CAMERA, VideoWidth: top.width, VideoHeight: top.height,
	}); err != nil {
		return err
	}
	audioTrack, err := lksdk.NewLocalTrack(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2})
	if err != nil {
		return err
	}
	if _, err := participant.PublishTrack(audioTrack, &lksdk.TrackPublicationOptions{Name: "audio", Source: livekit.TrackSource_MICROPHONE}); err != nil {
		return err
	}
	go playAudio(func(sample media.Sample) error { return audioTrack.WriteSample(sample, nil) }, done, audio)
	return nil
}
