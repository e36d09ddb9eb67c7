// The frame code: a frame's number drawn into the top of the picture as large black and white cells, so the pages
// (client-app/frame-reader.js), the media generator (media/generate.js) and the picture-quality matcher can all
// tell which source frame a picture shows. Pure and dependency-free: the page imports it as served, Node imports it
// from here.
//
// Layout, relative to the frame so any scaling keeps it: a strip of the top sixth of the frame, split into
// CODE_BITS columns and two rows. Column k carries bit k of the number (most significant first): white over black
// for a 1, black over white for a 0. Each bit is its own check: a cell pair that does not differ by at least
// MIN_MARGIN_LUMA (a frame without a code, a picture smeared beyond reading) makes the whole code unreadable. The
// cells are 1/16 of the width: 10 px at 160x90, where heavy VP8/H.264 quantisation still keeps them apart.

export const CODE_BITS = 16;
/** Numbers wrap here: a source longer than this many frames repeats its codes. */
export const CODE_MODULUS = 2 ** CODE_BITS;
/**
 * The code of a frame the <video> presented between two of the page's callbacks: on screen, its code never read.
 * (Chromium calls requestVideoFrameCallback at most once per page rendering step; when the page's main thread misses
 * display refreshes, one callback stands for several presented frames, and its presentedFrames says how many.)
 */
export const UNREAD_CODE = -2;
export const FRAME_CODE_VERSION = 1;
/** Limited-range luma (BT.601/709), what the encoders and the browsers' YUV->RGB conversions expect. */
export const BLACK_LUMA = 16;
export const WHITE_LUMA = 235;
/** Half the black-white distance: a pair closer than this is no code. */
export const MIN_MARGIN_LUMA = Math.round((WHITE_LUMA - BLACK_LUMA) / 4);
const STRIP_FRACTION = 1 / 6;

/** Rows of a frame `height` px high that the code covers (even, so 4:2:0 chroma rows align). @param {number} height */
export function codeStripHeight(height) {
  return Math.max(2, 2 * Math.round((height * STRIP_FRACTION) / 2));
}

/** Column k's pixel range in a frame `width` px wide. @param {number} width @param {number} k */
const columnRange = (width, k) => [Math.round((k * width) / CODE_BITS), Math.round(((k + 1) * width) / CODE_BITS)];

/**
 * Draws `code` (taken modulo CODE_MODULUS) into the luma plane of one frame, in place.
 * @param {Uint8Array} luma  width × height bytes, row after row (a Y plane)
 * @param {number} width @param {number} height @param {number} code
 */
export function stampFrameCode(luma, width, height, code) {
  const number = ((code % CODE_MODULUS) + CODE_MODULUS) % CODE_MODULUS;
  const strip = codeStripHeight(height);
  const half = strip / 2;
  for (let k = 0; k < CODE_BITS; k += 1) {
    const one = (number >> (CODE_BITS - 1 - k)) & 1;
    const [x0, x1] = columnRange(width, k);
    for (let y = 0; y < strip; y += 1) {
      const white = (y < half) === Boolean(one);
      luma.fill(white ? WHITE_LUMA : BLACK_LUMA, y * width + x0, y * width + x1);
    }
  }
}

/**
 * The mean brightness of the middle half (both ways) of a rectangle: far from the cell edges, which scaling and
 * compression blur.
 * @param {ArrayLike<number>} pixels @param {number} width @param {number} channels
 * @param {number} x0 @param {number} x1 @param {number} y0 @param {number} y1
 */
function cellMean(pixels, width, channels, x0, x1, y0, y1) {
  const ix0 = Math.floor(x0 + (x1 - x0) / 4);
  const ix1 = Math.max(ix0 + 1, Math.ceil(x1 - (x1 - x0) / 4));
  const iy0 = Math.floor(y0 + (y1 - y0) / 4);
  const iy1 = Math.max(iy0 + 1, Math.ceil(y1 - (y1 - y0) / 4));
  let sum = 0;
  for (let y = iy0; y < iy1; y += 1) {
    for (let x = ix0; x < ix1; x += 1) {
      const i = (y * width + x) * channels;
      // RGB(A): a luma-like weighting; the code's cells are grey, so any weighting reads them.
      sum += channels >= 3 ? (pixels[i] + 2 * pixels[i + 1] + pixels[i + 2]) / 4 : pixels[i];
    }
  }
  return sum / ((ix1 - ix0) * (iy1 - iy0));
}

/**
 * Reads the code from an image whose top `stripHeight` rows are the code strip: a whole frame (stripHeight =
 * codeStripHeight(height)) or just the strip scaled to any size (stripHeight = its height).
 * @param {ArrayLike<number>} pixels  row after row, `channels` values per pixel (1: luma; 4: RGBA as canvas gives it)
 * @param {number} width @param {number} stripHeight @param {number} [channels]
 * @returns {{ code: number, marginLuma: number } | null}  marginLuma: the weakest bit's black-white difference;
 *   null when any bit is weaker than MIN_MARGIN_LUMA
 */
export function readFrameCode(pixels, width, stripHeight, channels = 1) {
  if (width < CODE_BITS || stripHeight < 2) return null;
  const half = stripHeight / 2;
  let code = 0;
  let marginLuma = Infinity;
  for (let k = 0; k < CODE_BITS; k += 1) {
    const [x0, x1] = columnRange(width, k);
    const top = cellMean(pixels, width, channels, x0, x1, 0, half);
    const bottom = cellMean(pixels, width, channels, x0, x1, half, stripHeight);
    marginLuma = Math.min(marginLuma, Math.abs(top - bottom));
    code = code * 2 + (top > bottom ? 1 : 0);
  }
  return marginLuma >= MIN_MARGIN_LUMA ? { code, marginLuma: Math.round(marginLuma) } : null;
}
