import { and, not, or } from './conditions.js';
import type { Cond } from './conditions.js';
import type { Arm, Stmt } from './syntax.js';

/** Whether a block always ends in `exit` or `exec <command>` (an `if` only when each of its arms, an else included, does). */
function alwaysExits(body: Stmt[]): boolean {
  const last = body.at(-1);
  if (!last || last.pipelines.length !== 1 || last.pipelines[0]!.commands.length !== 1) return false;
  const command = last.pipelines[0]!.commands[0]!;
  if (command.kind === 'simple')
    return command.words[0]?.raw === 'exit' || (command.words[0]?.raw === 'exec' && command.words.length > 1);
  if (command.kind === 'if') return command.arms.some((a) => !a.cond) && command.arms.every((a) => alwaysExits(a.body));
  return command.kind === 'group' && !command.subshell && command.cond.kind === 'true' && alwaysExits(command.body);
}

/**
 * What must hold after an `if` for execution to go on: for each arm that always exits, that it
 * was not taken. Given the guards of earlier exiting arms, arm i is taken when no earlier arm
 * that goes on holds and its own condition does; an exiting else leaves "some earlier arm held".
 */
export function exitGuards(arms: Arm[], armConds: Map<Arm, Cond>): Cond[] {
  const guards: Cond[] = [];
  const goingOn: Cond[] = [];
  for (const arm of arms) {
    const own = armConds.get(arm);
    if (alwaysExits(arm.body)) guards.push(own ? not(and(...goingOn.map(not), own)) : or(...goingOn));
    else if (own) goingOn.push(own);
  }
  return guards;
}
