// load-peer: a cheap participant of an SFU room (issue 41). It publishes pre-encoded VP8 simulcast (three rids from IVF
// files) and Opus (an Ogg file) through Pion, answers NACKs (Pion's responder) and PLI/FIR (the layer jumps to its
// next keyframe in the file), sends receiver reports and transport-wide feedback, and may receive what the SFU
// offers it without decoding. It speaks JSON lines: in on stdin, states and cumulative counters out on stdout, once a
// second. How it joins is the SFU's (-join): `descriptions`, its descriptions travel through the orchestrator (Janus);
// `livekit`, it joins with LiveKit's Go SDK itself (livekit.go). The orchestrator (sfu/load-participants.js) treats
// every line it writes as hostile.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/pion/interceptor"
	"github.com/pion/rtcp"
	"github.com/pion/webrtc/v4"
	"github.com/pion/webrtc/v4/pkg/media"
)

// The rids, highest first, as the harness's browsers publish them (Janus's default rid order).
var rids = []string{"f", "h", "q"}

const maxLineBytes = 1 << 20

var sendOnly = webrtc.RTPTransceiverInit{Direction: webrtc.RTPTransceiverDirectionSendonly}

const maxConnections = 64

type message struct {
	Type  string `json:"type"`
	PC    string `json:"pc,omitempty"`
	SDP   string `json:"sdp,omitempty"`
	State string `json:"state,omitempty"`
	Error string `json:"error,omitempty"`
	// A join (stdin, -join livekit only): where and as whom it joins, whether it receives the others, and if so
	// whether only one of them (the speaker's identity).
	URL       string `json:"url,omitempty"`
	Token     string `json:"token,omitempty"`
	Subscribe bool   `json:"subscribe,omitempty"`
	Speaker   string `json:"speaker,omitempty"`
	*counts
}

type output struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func (o *output) send(m message) {
	o.mu.Lock()
	defer o.mu.Unlock()
	_ = o.enc.Encode(m)
}

func fail(out *output, err error) {
	out.send(message{Type: "error", Error: err.Error()})
	os.Exit(1)
}

func newAPI(c *counter, t *tagger) (*webrtc.API, error) {
	engine := &webrtc.MediaEngine{}
	feedback := []webrtc.RTCPFeedback{{Type: "goog-remb"}, {Type: "ccm", Parameter: "fir"}, {Type: "nack"}, {Type: "nack", Parameter: "pli"}, {Type: "transport-cc"}}
	// VP8 and Opus only, without RTX: a NACK is answered with the original packet.
	if err := engine.RegisterCodec(webrtc.RTPCodecParameters{RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP8, ClockRate: 90000, RTCPFeedback: feedback}, PayloadType: 96}, webrtc.RTPCodecTypeVideo); err != nil {
		return nil, err
	}
	if err := engine.RegisterCodec(webrtc.RTPCodecParameters{RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2, SDPFmtpLine: "minptime=10;useinbandfec=1"}, PayloadType: 111}, webrtc.RTPCodecTypeAudio); err != nil {
		return nil, err
	}
	registry := &interceptor.Registry{}
	// First, so it sits next to the transport and counts what crosses the wire, retransmissions included; the tagger
	// next, so retransmissions carry the rid too.
	registry.Add(c)
	registry.Add(t)
	if err := webrtc.RegisterDefaultInterceptors(engine, registry); err != nil {
		return nil, err
	}
	if err := webrtc.ConfigureTWCCHeaderExtensionSender(engine, registry); err != nil {
		return nil, err
	}
	settings := webrtc.SettingEngine{}
	settings.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	return webrtc.NewAPI(webrtc.WithMediaEngine(engine), webrtc.WithInterceptorRegistry(registry), webrtc.WithSettingEngine(settings)), nil
}

// describe waits for ICE gathering, so the description carries every candidate (Janus takes them in the SDP).
func describe(pc *webrtc.PeerConnection, offer bool) (string, error) {
	var desc webrtc.SessionDescription
	var err error
	if offer {
		desc, err = pc.CreateOffer(nil)
	} else {
		desc, err = pc.CreateAnswer(nil)
	}
	if err != nil {
		return "", err
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err = pc.SetLocalDescription(desc); err != nil {
		return "", err
	}
	<-gathered
	return pc.LocalDescription().SDP, nil
}

func watch(pc *webrtc.PeerConnection, name string, out *output) {
	pc.OnConnectionStateChange(func(state webrtc.PeerConnectionState) {
		out.send(message{Type: "state", PC: name, State: state.String()})
	})
}

// publisher builds the sending connection: one video transceiver with a track per rid, one audio transceiver.
func publisher(api *webrtc.API, t *tagger, layers map[string]*videoLayer, audio []opusPacket, out *output) (*webrtc.PeerConnection, error) {
	pc, err := api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return nil, err
	}
	watch(pc, "pub", out)
	var sender *webrtc.RTPSender
	var videoTransceiver *webrtc.RTPTransceiver
	tracks := map[string]*webrtc.TrackLocalStaticSample{}
	for _, rid := range rids {
		track, err := webrtc.NewTrackLocalStaticSample(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP8}, "video", "load", webrtc.WithRTPStreamID(rid))
		if err != nil {
			return nil, err
		}
		tracks[rid] = track
		if sender == nil {
			if videoTransceiver, err = pc.AddTransceiverFromTrack(track, sendOnly); err != nil {
				return nil, err
			}
			sender = videoTransceiver.Sender()
		} else if err = sender.AddEncoding(track); err != nil {
			return nil, err
		}
	}
	t.encodings(sender, videoTransceiver)
	audioTrack, err := webrtc.NewTrackLocalStaticSample(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus}, "audio", "load")
	if err != nil {
		return nil, err
	}
	audioTransceiver, err := pc.AddTransceiverFromTrack(audioTrack, sendOnly)
	if err != nil {
		return nil, err
	}
	audioSender := audioTransceiver.Sender()
	go drainRTCP(func() ([]rtcp.Packet, interceptor.Attributes, error) { return audioSender.ReadRTCP() })
	for _, rid := range rids {
		player := &layerPlayer{layer: layers[rid]}
		track := tracks[rid]
		go drainRTCP(func() ([]rtcp.Packet, interceptor.Attributes, error) {
			packets, attributes, err := sender.ReadSimulcastRTCP(rid)
			for _, packet := range packets {
				switch packet.(type) {
				case *rtcp.PictureLossIndication, *rtcp.FullIntraRequest:
					player.askKeyframe()
				}
			}
			return packets, attributes, err
		})
		go player.play(func(sample media.Sample) error { return track.WriteSample(sample) }, closed(pc))
	}
	go playAudio(func(sample media.Sample) error { return audioTrack.WriteSample(sample) }, closed(pc), audio)
	return pc, nil
}

// drainRTCP reads a sender's RTCP until it closes: reading is what runs the interceptors (NACK responder, counters).
func drainRTCP(read func() ([]rtcp.Packet, interceptor.Attributes, error)) {
	for {
		if _, _, err := read(); err != nil {
			return
		}
	}
}

// closed tells a player its connection is gone.
func closed(pc *webrtc.PeerConnection) func() bool {
	return func() bool { return pc.ConnectionState() == webrtc.PeerConnectionStateClosed }
}

type layerPlayer struct {
	mu       sync.Mutex
	layer    *videoLayer
	at       int
	keyframe bool
}

func (p *layerPlayer) askKeyframe() {
	p.mu.Lock()
	p.keyframe = true
	p.mu.Unlock()
}

func (p *layerPlayer) next() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.keyframe {
		p.keyframe = false
		p.at = p.layer.nextKeyframe(p.at)
	}
	frame := p.layer.frames[p.at]
	p.at = (p.at + 1) % len(p.layer.frames)
	return frame
}

// play writes the layer's frames in real time through write until done.
func (p *layerPlayer) play(write func(media.Sample) error, done func() bool) {
	ticker := time.NewTicker(p.layer.frameTime)
	defer ticker.Stop()
	for range ticker.C {
		if done() {
			return
		}
		if err := write(media.Sample{Data: p.next(), Duration: p.layer.frameTime}); err != nil && err != io.ErrClosedPipe {
			return
		}
	}
}

func playAudio(write func(media.Sample) error, done func() bool, packets []opusPacket) {
	for i := 0; !done(); i = (i + 1) % len(packets) {
		packet := packets[i]
		if err := write(media.Sample{Data: packet.payload, Duration: packet.duration}); err != nil && err != io.ErrClosedPipe {
			return
		}
		time.Sleep(packet.duration)
	}
}

// readUndecoded reads a received track until it ends: reading runs the counters and the receiver reports.
func readUndecoded(track *webrtc.TrackRemote) {
	buffer := make([]byte, 1500)
	for {
		if _, _, err := track.Read(buffer); err != nil {
			return
		}
	}
}

// subscriber answers an SFU's offer and reads what it forwards, undecoded (reading runs the counters and reports).
func subscriber(api *webrtc.API, name, offer string, out *output) (*webrtc.PeerConnection, string, error) {
	pc, err := api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return nil, "", err
	}
	watch(pc, name, out)
	pc.OnTrack(func(track *webrtc.TrackRemote, _ *webrtc.RTPReceiver) { readUndecoded(track) })
	if err = pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: offer}); err != nil {
		return pc, "", err
	}
	answer, err := describe(pc, false)
	return pc, answer, err
}

func main() {
	mediaDir := flag.String("media", "", "folder with f.ivf, h.ivf, q.ivf (VP8) and audio.ogg (Opus)")
	join := flag.String("join", "descriptions", "how it joins: descriptions (they travel on stdin and stdout) or livekit (a join line on stdin)")
	flag.Parse()
	out := &output{enc: json.NewEncoder(os.Stdout)}
	layers := map[string]*videoLayer{}
	for _, rid := range rids {
		layer, err := readIVF(filepath.Join(*mediaDir, rid+".ivf"))
		if err != nil {
			fail(out, err)
		}
		layers[rid] = layer
	}
	audio, err := readOgg(filepath.Join(*mediaDir, "audio.ogg"))
	if err != nil {
		fail(out, err)
	}
	c := &counter{}
	lines := bufio.NewScanner(os.Stdin)
	lines.Buffer(make([]byte, 64*1024), maxLineBytes)
	switch *join {
	case "descriptions":
		joinByDescriptions(c, layers, audio, lines, out)
	case "livekit":
		joinLivekit(c, layers, audio, lines, out)
	default:
		fail(out, fmt.Errorf("-join %q: use descriptions or livekit", *join))
	}
}

// reportCounts writes the counters once a second.
func reportCounts(c *counter, out *output) {
	for range time.Tick(time.Second) {
		snapshot := c.snapshot()
		out.send(message{Type: "counts", counts: &snapshot})
	}
}

// next reads one stdin line as a message; false when stdin is closed (the orchestrator is done with it).
func next(lines *bufio.Scanner, out *output) (message, bool) {
	var in message
	if !lines.Scan() {
		return in, false
	}
	if err := json.Unmarshal(lines.Bytes(), &in); err != nil {
		fail(out, fmt.Errorf("stdin: not a JSON message: %w", err))
	}
	return in, true
}

// joinByDescriptions offers its publishing connection and answers the SFU's offers, all through the orchestrator.
func joinByDescriptions(c *counter, layers map[string]*videoLayer, audio []opusPacket, lines *bufio.Scanner, out *output) {
	t := &tagger{}
	api, err := newAPI(c, t)
	if err != nil {
		fail(out, err)
	}
	connections := map[string]*webrtc.PeerConnection{}
	pub, err := publisher(api, t, layers, audio, out)
	if err != nil {
		fail(out, err)
	}
	connections["pub"] = pub
	offer, err := describe(pub, true)
	if err != nil {
		fail(out, err)
	}
	out.send(message{Type: "offer", PC: "pub", SDP: offer})
	go reportCounts(c, out)
	for in, ok := next(lines, out); ok; in, ok = next(lines, out) {
		switch {
		case in.Type == "answer" && in.PC == "pub":
			err = pub.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: in.SDP})
		case in.Type == "offer" && in.PC != "pub" && in.PC != "" && connections[in.PC] == nil && len(connections) < maxConnections:
			var pc *webrtc.PeerConnection
			var answer string
			pc, answer, err = subscriber(api, in.PC, in.SDP, out)
			if pc != nil {
				connections[in.PC] = pc
			}
			if err == nil {
				out.send(message{Type: "answer", PC: in.PC, SDP: answer})
			}
		default:
			err = fmt.Errorf("stdin: unexpected %q for connection %q", in.Type, in.PC)
		}
		if err != nil {
			fail(out, err)
		}
	}
	for _, pc := range connections {
		_ = pc.Close()
	}
}
