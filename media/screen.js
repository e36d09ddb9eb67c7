// The screen-share source (pure): ffmpeg arguments for generated slides, the content a shared screen carries. Three
// static slides of large and small text, each shown for a third of the loop, over a ticker line that scrolls the
// whole time, so an encoder sees what screen content is: sharp edges that must stay legible, long still stretches
// and a small moving region. The top sixth is left for the frame code (media/generate.js marks it), so the viewer and
// picture quality match the screen's frames to this source as they do the camera's.
import { existsSync } from 'node:fs';
import { EnvironmentError } from '../orchestrator/lib/system/errors.js';

/** DejaVu (fonts-dejavu-core, which Debian's and Ubuntu's ffmpeg pull in): drawtext needs a font file. */
export const SCREEN_FONT = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';
export const SCREEN_VERSION = 1;

/** Each slide's title and body lines (plain words: drawtext's option syntax makes : , ' \ special). */
const SLIDES = [
  { title: 'Quarterly network review', lines: ['Median round trip 42 ms across 18 regions', 'Packet loss below 0.3 percent on 97 percent of calls',
    'Relay usage 11 percent of sessions', 'Next steps - move two regions to the new transit'] },
  { title: 'Encoder settings', lines: ['Content hint detail keeps the resolution', 'Frame rate falls first when the link is short',
    'Keyframes every 3 s on static slides', 'Text edges need more bits than camera noise'] },
  { title: 'Open questions', lines: ['Does the receiver hold 1080p for documents', 'How fast does scrolling text recover after loss',
    'What does a viewer read at 250 kbps', 'Which codec keeps small print legible'] },
];
const TICKER = 'Scrolling region - the quick brown fox jumps over the lazy dog 0123456789 - pack my box with five dozen liquor jugs - ';

/**
 * ffmpeg arguments for `loopS` seconds of slides at a preset's size and rate, as y4m to `outFile`.
 * @param {{ width: number, height: number, fps: number }} preset @param {number} loopS @param {string} outFile
 * @param {string} [font]
 */
export function screenArgs({ width, height, fps }, loopS, outFile, font = SCREEN_FONT) {
  const slideS = loopS / SLIDES.length;
  const [titlePx, linePx, tickerPx] = [height / 12, height / 26, height / 22].map(Math.round);
  /** @param {string} text @param {number} size @param {string} x @param {string|number} y @param {string} [extra] */
  const text = (text, size, x, y, extra = '') => `drawtext=fontfile=${font}:text='${text}':fontsize=${size}:fontcolor=black:x=${x}:y=${y}${extra}`;
  const slides = SLIDES.flatMap(({ title, lines }, i) => {
    const shown = `:enable='between(t,${(i * slideS).toFixed(3)},${((i + 1) * slideS).toFixed(3)})'`;
    const top = Math.round(height * 0.22);
    return [text(title, titlePx, `${Math.round(width / 20)}`, top, shown),
      ...lines.map((line, k) => text(`- ${line}`, linePx, `${Math.round(width / 14)}`, top + titlePx * 1.6 + k * linePx * 1.7, shown))];
  });
  const tickerY = Math.round(height * 0.86);
  const filter = [`color=c=0xf4f4f4:size=${width}x${height}:rate=${fps}`,
    `drawbox=x=0:y=${tickerY - tickerPx / 2}:w=${width}:h=${tickerPx * 2}:color=0x203050:t=fill`, ...slides,
    // A tenth of the width a second, leftwards: ~3 px a frame at 30 fps.
    `drawtext=fontfile=${font}:text='${TICKER.repeat(3)}':fontsize=${tickerPx}:fontcolor=white:x=-t*${Math.round(width / 10)}:y=${tickerY}`,
    'format=yuv420p'].join(',');
  return ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', filter, '-t', String(loopS), '-f', 'yuv4mpegpipe', outFile];
}

/**
 * ffmpeg arguments for the WebM the page plays and captures as its screen (client-app/screen-share.js): lossless VP9,
 * so the frames it captures are the y4m's, bit for bit, and picture quality scores only what WebRTC did to them.
 * @param {string} y4m @param {string} outFile
 */
export function screenCaptureArgs(y4m, outFile) {
  return ['-hide_banner', '-loglevel', 'error', '-y', '-i', y4m, '-c:v', 'libvpx-vp9', '-lossless', '1', '-deadline', 'good',
    '-cpu-used', '4', '-row-mt', '1', '-g', '30', '-an', '-f', 'webm', outFile];
}

/** Throws unless the font the slides are drawn with is installed. @param {string} [font] */
export function checkScreenFont(font = SCREEN_FONT) {
  if (!existsSync(font)) throw new EnvironmentError(`the screen-share slides are drawn with ${font}, which is missing; apt-get install fonts-dejavu-core`);
}
