package main

// counter is an interceptor that counts what crosses the wire: RTP sent and received (packets and bytes, header
// included), and the NACKs and PLI/FIR requests received.

import (
	"sync"
	"sync/atomic"

	"github.com/pion/interceptor"
	"github.com/pion/rtcp"
	"github.com/pion/rtp"
	"github.com/pion/sdp/v3"
	"github.com/pion/webrtc/v4"
)

type counts struct {
	SentPackets     uint64 `json:"sentPackets"`
	SentBytes       uint64 `json:"sentBytes"`
	ReceivedPackets uint64 `json:"receivedPackets"`
	ReceivedBytes   uint64 `json:"receivedBytes"`
	NacksReceived   uint64 `json:"nacksReceived"`
	PlisReceived    uint64 `json:"plisReceived"`
}

type counter struct {
	interceptor.NoOp
	sentPackets, sentBytes, receivedPackets, receivedBytes, nacks, plis atomic.Uint64
}

// The counter is one interceptor shared by every connection: the totals are the participant's.
func (c *counter) NewInterceptor(string) (interceptor.Interceptor, error) { return c, nil }

func (c *counter) snapshot() counts {
	return counts{c.sentPackets.Load(), c.sentBytes.Load(), c.receivedPackets.Load(), c.receivedBytes.Load(), c.nacks.Load(), c.plis.Load()}
}

func (c *counter) BindLocalStream(_ *interceptor.StreamInfo, writer interceptor.RTPWriter) interceptor.RTPWriter {
	return interceptor.RTPWriterFunc(func(header *rtp.Header, payload []byte, attributes interceptor.Attributes) (int, error) {
		n, err := writer.Write(header, payload, attributes)
		if err == nil {
			c.sentPackets.Add(1)
			c.sentBytes.Add(uint64(header.MarshalSize() + len(payload)))
		}
		return n, err
	})
}

func (c *counter) BindRemoteStream(_ *interceptor.StreamInfo, reader interceptor.RTPReader) interceptor.RTPReader {
	return interceptor.RTPReaderFunc(func(b []byte, attributes interceptor.Attributes) (int, interceptor.Attributes, error) {
		n, attributes, err := reader.Read(b, attributes)
		if err == nil {
			c.receivedPackets.Add(1)
			c.receivedBytes.Add(uint64(n))
		}
		return n, attributes, err
	})
}

func (c *counter) BindRTCPReader(reader interceptor.RTCPReader) interceptor.RTCPReader {
	return interceptor.RTCPReaderFunc(func(b []byte, attributes interceptor.Attributes) (int, interceptor.Attributes, error) {
		n, attributes, err := reader.Read(b, attributes)
		if err != nil {
			return n, attributes, err
		}
		if packets, parseErr := rtcp.Unmarshal(b[:n]); parseErr == nil {
			for _, packet := range packets {
				switch p := packet.(type) {
				case *rtcp.TransportLayerNack:
					for _, pair := range p.Nacks {
						c.nacks.Add(uint64(len(pair.PacketList())))
					}
				case *rtcp.PictureLossIndication, *rtcp.FullIntraRequest:
					c.plis.Add(1)
				}
			}
		}
		return n, attributes, err
	})
}

// tagger writes the mid and rid header extensions on each simulcast encoding's packets, as a browser does: Pion sends
// every rid on an SSRC of its own but tags none, and an SFU that learns a rid's SSRC from the extension (Janus) would
// drop them all as unknown SSRCs.
type tagger struct {
	interceptor.NoOp
	mu   sync.Mutex
	rids map[uint32]string
	mid  func() string
}

func (t *tagger) NewInterceptor(string) (interceptor.Interceptor, error) { return t, nil }

// encodings records the SSRC of every rid of the simulcast sender, and where its mid is once negotiated.
func (t *tagger) encodings(sender *webrtc.RTPSender, transceiver *webrtc.RTPTransceiver) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.rids = map[uint32]string{}
	for _, encoding := range sender.GetParameters().Encodings {
		t.rids[uint32(encoding.SSRC)] = encoding.RID
	}
	t.mid = transceiver.Mid
}

func (t *tagger) BindLocalStream(info *interceptor.StreamInfo, writer interceptor.RTPWriter) interceptor.RTPWriter {
	t.mu.Lock()
	rid, simulcast := t.rids[info.SSRC]
	mid := ""
	if t.mid != nil {
		mid = t.mid()
	}
	t.mu.Unlock()
	var midID, ridID int
	for _, extension := range info.RTPHeaderExtensions {
		switch extension.URI {
		case sdp.SDESMidURI:
			midID = extension.ID
		case sdp.SDESRTPStreamIDURI:
			ridID = extension.ID
		}
	}
	if !simulcast || ridID == 0 {
		return writer
	}
	return interceptor.RTPWriterFunc(func(header *rtp.Header, payload []byte, attributes interceptor.Attributes) (int, error) {
		if midID != 0 && mid != "" {
			_ = header.SetExtension(uint8(midID), []byte(mid))
		}
		_ = header.SetExtension(uint8(ridID), []byte(rid))
		return writer.Write(header, payload, attributes)
	})
}
