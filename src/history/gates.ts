// CI gates on audited scores: `--fail-under SCORE` and `--fail-on-drop POINTS` (exit 7). Scores are
// compared as the server gives them: the scale is undocumented (0–100 in the sandbox, 0–5 elsewhere).
import { scrubLine } from '../text.js';
import { roundScore, scoreText } from './change.js';

export interface GateLimits {
  /** Fails a score below this. */
  failUnder?: number;
  /** Fails a score that fell by more than this since its previous recorded point. */
  failOnDrop?: number;
}

export interface GateInput {
  /** The company's name as shown (server text: scrubbed here). */
  name: string;
  /** Undefined when the answer had none: a gate cannot judge it, so it fails (a first point, with a score, passes --fail-on-drop). */
  score?: number;
  /** The score of the previous recorded point, when there is one. */
  previousScore?: number;
}

export interface GateFailure {
  /** `no-score`: a gate was asked for and the answer had no score to judge. */
  gate: 'fail-under' | 'fail-on-drop' | 'no-score';
  /** One line for stderr: `Blue Bottle: fell 7.0 (from 80.0 to 73.0), more than 5`. */
  reason: string;
}

export function evaluateGates(input: GateInput, limits: GateLimits): GateFailure[] {
  const { score, previousScore } = input;
  // Scrubbed only for a failure's line: most runs have no gate, or pass it.
  const name = () => scrubLine(input.name);
  if (score === undefined || !Number.isFinite(score)) {
    const gated = limits.failUnder !== undefined || limits.failOnDrop !== undefined;
    return gated ? [{ gate: 'no-score', reason: `${name()}: no score to compare` }] : [];
  }
  const failures: GateFailure[] = [];
  if (limits.failUnder !== undefined && score < limits.failUnder) {
    failures.push({ gate: 'fail-under', reason: `${name()}: ${scoreText(score)} is under ${limits.failUnder}` });
  }
  const drop = previousScore === undefined ? undefined : roundScore(previousScore - score);
  if (limits.failOnDrop !== undefined && drop !== undefined && drop > limits.failOnDrop) {
    failures.push({
      gate: 'fail-on-drop',
      reason: `${name()}: fell ${scoreText(drop)} (from ${scoreText(previousScore!)} to ${scoreText(score)}), more than ${limits.failOnDrop}`,
    });
  }
  return failures;
}
