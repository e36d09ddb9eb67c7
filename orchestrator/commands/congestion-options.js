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

/**
 * What a dry run says of these flags: "every run with field trials … and remb estimation", or null without them.
 * @param {{ fieldTrials?: string, bandwidthEstimation?: string }} argv
 */
export function congestionPlanLine({ fieldTrials, bandwidthEstimation }) {
  const changes = [fieldTrials && `field trials ${fieldTrials}`, bandwidthEstimation && `${bandwidthEstimation} estimation`].filter(Boolean);
  return changes.length ? `every run with ${changes.join(' and ')}` : null;
}
