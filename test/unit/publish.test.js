// Simulcast and SVC publishing, validated at the edge (lib/media/publish.js): the scenario's `publish`, --publish, the
// layers' sizes, and the SFU's declarations checked before anything starts (sfu/index.js checkSfuSupport).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import {
  checkPublishSources, layerSizes, normalizePublish, parsePublishFlag, simulcastLayerLimit, svcSpatialLayerLimit,
} from '../../orchestrator/lib/media/publish.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { SFUS, checkSfuSupport } from '../../orchestrator/sfu/index.js';

const inputError = (pattern) => (error) => error instanceof InputError && pattern.test(error.message);

test('simulcast: two or three rids, highest first, each at its resolution; temporal layers per rid', () => {
  const three = normalizePublish({ simulcast: 3 }, 'f: publish.p0');
  assert.equal(three.kind, 'simulcast');
  assert.equal(three.codec.name, 'vp8');
  assert.deepEqual(three.sendEncodings, [{ rid: 'f', scaleResolutionDownBy: 1 }, { rid: 'h', scaleResolutionDownBy: 2 }, { rid: 'q', scaleResolutionDownBy: 4 }]);
  assert.deepEqual(layerSizes(three, { widthPx: 1280, heightPx: 720 }), [
    { layer: 0, rid: 'q', widthPx: 320, heightPx: 180 }, { layer: 1, rid: 'h', widthPx: 640, heightPx: 360 }, { layer: 2, rid: 'f', widthPx: 1280, heightPx: 720 }]);
  const temporal = normalizePublish({ simulcast: 2, codec: 'h264', scalabilityMode: 'L1T3' }, 'w');
  assert.deepEqual([temporal.spatialLayers, temporal.temporalLayers, temporal.codec.mimeType], [2, 3, 'video/H264']);
  assert.equal(three.temporalLayers, 3, 'Chromium\'s VP8 simulcast: L1T3 unless told');
  assert.equal(normalizePublish({ simulcast: 2, codec: 'h264' }, 'w').temporalLayers, 1);
});

test('SVC: a scalability mode, spatial layers only with VP9 or AV1; 1.5:1 for the h modes', () => {
  const svc = normalizePublish({ codec: 'vp9', scalabilityMode: 'L3T3_KEY' }, 'w');
  assert.deepEqual([svc.kind, svc.spatialLayers, svc.temporalLayers, svc.sendEncodings.length], ['svc', 3, 3, 0]);
  assert.deepEqual(layerSizes(svc, { widthPx: 1280, heightPx: 720 }).map((l) => l.heightPx), [180, 360, 720]);
  assert.deepEqual(layerSizes(normalizePublish({ codec: 'av1', scalabilityMode: 'L2T1h' }, 'w'), { widthPx: 1280, heightPx: 720 }).map((l) => l.heightPx), [480, 720]);
  assert.equal(normalizePublish({ scalabilityMode: 'L1T3' }, 'w').codec.name, 'vp8');
});

test('every wrong publishing names the field and what to write instead', () => {
  assert.throws(() => normalizePublish({ simulcast: 4 }, 'f: publish.p0'), inputError(/^f: publish\.p0\.simulcast: 4 is not a number of simulcast layers; use 2 or 3$/));
  assert.throws(() => normalizePublish({}, 'f: publish.p0'), inputError(/^f: publish\.p0: neither simulcast nor scalabilityMode; give "simulcast": 3/));
  assert.throws(() => normalizePublish({ scalabilityMode: 'L3T3' }, 'f: publish.p0'), inputError(/L3T3 has spatial layers, which vp8 does not encode; use codec vp9 or av1, or simulcast$/));
  assert.throws(() => normalizePublish({ simulcast: 3, codec: 'vp9', scalabilityMode: 'L3T3' }, 'w'), inputError(/simulcast encodings do not; give L1T2 or L1T3/));
  assert.throws(() => normalizePublish({ codec: 'theora', simulcast: 2 }, 'w'), inputError(/^w\.codec: "theora" is not a codec/));
  assert.throws(() => normalizePublish({ simulcast: 3, rids: 3 }, 'w'), InputError);
  assert.throws(() => normalizePublish('simulcast', 'w'), InputError);
  assert.throws(() => normalizePublish({ codec: 'vp9', scalabilityMode: 'L9T9' }, 'w'), inputError(/scalabilityMode: "L9T9" is not a scalability mode/));
});

test('--publish takes the same fields as key=value pairs', () => {
  assert.deepEqual(parsePublishFlag('simulcast=3,codec=h264'), normalizePublish({ simulcast: 3, codec: 'h264' }, '--publish'));
  assert.deepEqual(parsePublishFlag('codec=vp9,scalabilityMode=L3T3'), normalizePublish({ codec: 'vp9', scalabilityMode: 'L3T3' }, '--publish'));
  assert.equal(parsePublishFlag(undefined), null);
  assert.throws(() => parsePublishFlag('layers=3'), inputError(/^--publish: "layers=3" is not an option; write key=value pairs of codec, simulcast, scalabilityMode/));
  assert.throws(() => parsePublishFlag('simulcast=three'), inputError(/^--publish\.simulcast: "three"/));
});

test('Chromium sends as many simulcast layers as the source size allows (measured: 640×360 sends two of three)', () => {
  assert.equal(simulcastLayerLimit({ widthPx: 1280, heightPx: 720 }), 3);
  assert.equal(simulcastLayerLimit({ widthPx: 960, heightPx: 540 }), 3);
  assert.equal(simulcastLayerLimit({ widthPx: 640, heightPx: 360 }), 2);
  assert.equal(simulcastLayerLimit({ widthPx: 320, heightPx: 180 }), 1);
});

test('Chromium encodes as many VP9 SVC spatial layers as keep the lowest at least 240×135 (measured: L3T3 from 640×360 is L2T3)', () => {
  assert.equal(svcSpatialLayerLimit({ widthPx: 1280, heightPx: 720 }), 3);
  assert.equal(svcSpatialLayerLimit({ widthPx: 960, heightPx: 540 }), 3);
  assert.equal(svcSpatialLayerLimit({ widthPx: 640, heightPx: 360 }), 2);
  assert.equal(svcSpatialLayerLimit({ widthPx: 480, heightPx: 270 }), 2);
  assert.equal(svcSpatialLayerLimit({ widthPx: 360, heightPx: 640 }), 2, 'portrait: the long side is the height');
  assert.equal(svcSpatialLayerLimit({ widthPx: 320, heightPx: 180 }), 1);
  const svc = { p0: normalizePublish({ codec: 'vp9', scalabilityMode: 'L3T3' }, 'w') };
  assert.doesNotThrow(() => checkPublishSources(svc, { p0: { width: 1280, height: 720, preset: '720p30' } }));
  assert.throws(() => checkPublishSources(svc, { p0: { width: 640, height: 360, preset: '360p15' } }), inputError(
    /^publish\.p0: L3T3 has 3 spatial layers, but Chromium encodes only 2 from p0's 640×360 video \(360p15\) \(the lowest at least 240×135\); give p0 720p30 or larger \(the scenario's media, or --video 720p30\), or publish scalabilityMode L2T3$/));
  assert.throws(() => checkPublishSources({ p1: normalizePublish({ simulcast: 3 }, 'w') }, { p1: { width: 640, height: 360, preset: '360p30' } }),
    inputError(/^publish\.p1: 3 simulcast layers, but Chromium encodes only 2 from p1's 640×360 video \(360p30\); give p1 720p30 or larger .*, or publish simulcast 2$/));
  assert.doesNotThrow(() => checkPublishSources({ p0: normalizePublish({ codec: 'vp9', scalabilityMode: 'L2T3' }, 'w') }, { p0: { width: 640, height: 360 } }));
});

/** A scenario file in a fresh folder. @param {object} fields */
function scenarioFile(fields) {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'wtb-publish-')), 'sim.json');
  writeFileSync(file, JSON.stringify({ name: 'sim', description: 'd', durationS: 20, warmupS: 5, peers: 3, topology: 'sfu', ...fields }));
  return file;
}

test('a scenario\'s publish is per main-call peer, for SFU calls only; --publish replaces it for every peer', () => {
  const file = scenarioFile({ publish: { p0: { simulcast: 3 }, p2: { codec: 'vp9', scalabilityMode: 'L3T3' } } });
  const scenario = loadScenario(file);
  assert.deepEqual(Object.keys(scenario.publish), ['p0', 'p2']);
  assert.deepEqual(Object.keys(loadScenario(file, { publish: parsePublishFlag('simulcast=2') }).publish), ['p0', 'p1', 'p2']);
  assert.throws(() => loadScenario(scenarioFile({ publish: { p3: { simulcast: 3 } } })), inputError(/publish.*p3/));
  assert.throws(() => loadScenario(scenarioFile({ topology: 'mesh', publish: { p0: { simulcast: 3 } } })),
    inputError(/: publish: simulcast and SVC publish to an SFU, and this scenario has topology mesh; set "topology": "sfu" or drop publish$/));
  assert.deepEqual(loadScenario('mesh-3', { publish: parsePublishFlag('simulcast=3') }).publish, {}, 'a suite\'s --publish leaves mesh calls alone');
});

test('a run whose SFU does not declare what a peer publishes stops before anything starts, naming the SFU and what it forwards', () => {
  const janus = SFUS[0];
  const scenario = loadScenario(scenarioFile({ publish: { p0: { simulcast: 3, codec: 'vp9' }, p1: { codec: 'av1', scalabilityMode: 'L3T3' } } }));
  assert.throws(() => checkSfuSupport(janus.name, { ...scenario, publish: { p0: scenario.publish.p0 } }),
    inputError(new RegExp(`: publish\\.p0: --sfu ${janus.name} forwards simulcast of ${janus.capabilities.simulcastCodecs.join(', ')}, not vp9; publish `)));
  assert.throws(() => checkSfuSupport(janus.name, { ...scenario, publish: { p1: scenario.publish.p1 } }), inputError(/: publish\.p1: --sfu .* forwards SVC of .* not av1 L3T3; choose one of those/));
  assert.doesNotThrow(() => checkSfuSupport(janus.name, loadScenario(scenarioFile({ publish: { p0: { simulcast: 3 }, p1: { simulcast: 2, codec: 'h264' } } }))));
  assert.doesNotThrow(() => checkSfuSupport(janus.name, { topology: 'mesh', publish: scenario.publish }), 'a mesh call asks no SFU');
});
