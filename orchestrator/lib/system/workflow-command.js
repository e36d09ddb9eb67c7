// GitHub Actions workflow commands (`::warning title=…::message` on standard output), escaped as the runner
// unescapes them: text from a results store or a result file must not end the line and start a command of its own.
// https://github.com/actions/toolkit/blob/main/packages/core/src/command.ts

/** A command's message: %, CR and LF. @param {string} text */
const escapeData = (text) => text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');

/** A property's value: also ':' and ',', which end it. @param {string} text */
const escapeProperty = (text) => escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C');

/**
 * One workflow command line.
 * @param {string} command e.g. 'warning' @param {Record<string, string>} properties e.g. { title: 'drift' }
 * @param {string} message
 */
export function workflowCommand(command, properties, message) {
  const props = Object.entries(properties).map(([key, value]) => `${key}=${escapeProperty(value)}`).join(',');
  return `::${command}${props ? ` ${props}` : ''}::${escapeData(message)}`;
}

/** Text on a line of its own in the job's log or summary: line breaks become spaces. @param {string} text */
export const oneLine = (text) => text.replace(/[\r\n]+/g, ' ');
