// --field-trials and --bandwidth-estimation, shared by `scenario` and `suite`: which parts of the browsers' congestion
// control a run uses (lib/scenario/field-trials.js, client-app/bandwidth-estimation.js), over the scenarios' own.
import { BANDWIDTH_ESTIMATIONS } from '../lib/scenario/scenario-file.js';

export const FIELD_TRIALS_OPTION = {
  type: /** @type {const} */ ('string'),
  describe: 'Chromium field trials for every Chromium peer, as --force-fieldtrials reads them (e.g. WebRTC-Bwe-LossBasedBweV2/Enabled:false/); '
    + 'overrides the scenario\'s fieldTrials',
};

export const BANDWIDTH_ESTIMATION_OPTION = {
  choices: BANDWIDTH_ESTIMATIONS,
  describe: 'the feedback congestion control runs on: send-side (transport-wide, the browsers\' default) or remb (receive-side, as J16\'s '
    + 'Chrome); mesh calls only; overrides the scenario\'s bandwidthEstimation',
};
