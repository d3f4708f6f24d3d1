// Must NOT type-check: the types say what the module takes.
import { Capper, cap } from 'capout';

export const n: number = cap('x');
export const c = new Capper({ tailChars: '5', nope: true });
export const d = new Capper({ nope: true });
