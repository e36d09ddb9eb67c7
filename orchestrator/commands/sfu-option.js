// --sfu, shared by the commands that run scenarios: which SFU an SFU call (topology sfu) runs through. The choices
// are the registry's (sfu/index.js); a mesh call ignores it.
import { emulatorFlagsWith } from '../emulators/index.js';
import { parsePublishFlag } from '../lib/media/publish.js';
import { SFUS, defaultSfu, sfuNames } from '../sfu/index.js';

/** What --help says of the SFUs whose pages signal to them directly, by what they declare. */
const directNote = () => {
  const direct = SFUS.filter((sfu) => sfu.capabilities.signalsItself).map((sfu) => sfu.name);
  return direct.length ? ` (${direct.join(', ')}: its pages signal to it directly and steer their candidates through the harness; ${emulatorFlagsWith((backend) => backend.supports.directSfu)} carry it)` : '';
};

/** `scenario` and `reproduce`: the registry's first SFU unless named. */
export const sfuOption = () => ({
  choices: sfuNames(), default: defaultSfu(),
  describe: `the SFU of SFU calls (topology sfu): ${sfuNames().join(', ')}${directNote()}; mesh calls ignore it`,
});

/** `suite`: the suite file's `sfu` unless named. */
export const suiteSfuOption = () => ({
  choices: sfuNames(),
  describe: `the SFU of the suite's SFU calls instead of the suite's (${sfuNames().join(', ')}; default ${defaultSfu()}); an entry naming its own keeps it${directNote()}`,
});

/** `scenario` and `suite`: simulcast or SVC for every publisher of an SFU call (lib/media/publish.js), over the scenarios'. */
export const PUBLISH_OPTION = {
  type: /** @type {const} */ ('string'),
  describe: 'SFU calls: every peer publishes simulcast or SVC, as key=value pairs of simulcast (2, 3), codec and scalabilityMode, '
    + 'e.g. simulcast=3, simulcast=3,codec=h264, codec=vp9,scalabilityMode=L3T3; over the scenario\'s publish',
};

/** --publish, checked: null when absent. @param {unknown} value  argv.publish */
export const publishFlag = (value) => parsePublishFlag(value);
