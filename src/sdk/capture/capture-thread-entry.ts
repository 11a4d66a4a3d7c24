/** Capture's parse thread's entry (see CaptureThread): works large capture requests' bodies into queue rows. */
import { answerQuestions } from '../../platform/request-thread.js';
import { captureRequestRows, type CaptureRequestInput, type CaptureRequestOutcome } from './capture-request.js';

answerQuestions<CaptureRequestInput, CaptureRequestOutcome>((input) => ({ answer: captureRequestRows(input) }));
