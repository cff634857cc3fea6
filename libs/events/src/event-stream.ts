import { DEFAULT_EVENT_STREAM, DEFAULT_EVENT_SUBJECT_PREFIX } from '@sa/contracts';
import { NatsConnection, NatsError, RetentionPolicy, StorageType, StreamConfig, StreamInfo, nanos } from 'nats';

/** The JetStream stream events are published to: its name and the prefix of its subjects. */
export interface EventStreamConfig {
  name: string;
  /** Events go to `<subjectPrefix>.<type>`; the stream captures `<subjectPrefix>.>`. */
  subjectPrefix: string;
}

export const DEFAULT_EVENT_STREAM_CONFIG: EventStreamConfig = { name: DEFAULT_EVENT_STREAM, subjectPrefix: DEFAULT_EVENT_SUBJECT_PREFIX };

/** How long the stream keeps events, and how long it remembers Nats-Msg-Ids to drop republishes. */
export const EVENT_STREAM_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
export const EVENT_STREAM_DUPLICATE_WINDOW_MS = 2 * 60 * 1000;

/** JetStream API error codes this library reacts to. */
export const JS_ERR_STREAM_NOT_FOUND = 10059;
export const JS_ERR_STREAM_NAME_IN_USE = 10058;
export const JS_ERR_CONSUMER_NOT_FOUND = 10014;

/** The JetStream API error code of a failed request (`err_code`), if it is one. */
export function jsErrorCode(err: unknown): number | undefined {
  return (err as Partial<NatsError> | undefined)?.api_error?.err_code;
}

/** The configuration the event stream must have. */
export function desiredStreamConfig(cfg: EventStreamConfig): Pick<StreamConfig, 'name' | 'subjects' | 'storage' | 'retention' | 'max_age' | 'duplicate_window'> {
  return {
    name: cfg.name,
    subjects: [`${cfg.subjectPrefix}.>`],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    max_age: nanos(EVENT_STREAM_MAX_AGE_MS),
    duplicate_window: nanos(EVENT_STREAM_DUPLICATE_WINDOW_MS),
  };
}

/**
 * The changes that bring an existing stream to the desired configuration, or null when it has it.
 * Storage and retention cannot be changed on a live stream, so they are not compared.
 */
export function streamConfigUpdate(
  existing: Pick<StreamConfig, 'subjects' | 'max_age' | 'duplicate_window'>,
  desired: Pick<StreamConfig, 'subjects' | 'max_age' | 'duplicate_window'>,
): Pick<StreamConfig, 'subjects' | 'max_age' | 'duplicate_window'> | null {
  const sameSubjects = existing.subjects?.length === desired.subjects.length && desired.subjects.every((s) => existing.subjects.includes(s));
  if (sameSubjects && existing.max_age === desired.max_age && existing.duplicate_window === desired.duplicate_window) return null;
  return { subjects: desired.subjects, max_age: desired.max_age, duplicate_window: desired.duplicate_window };
}

/**
 * Creates the event stream, or updates it to the expected configuration; safe to call from every
 * replica of every service at start (concurrent creators are handled).
 */
export async function ensureEventStream(nc: NatsConnection, cfg: EventStreamConfig): Promise<StreamInfo> {
  const jsm = await nc.jetstreamManager();
  const desired = desiredStreamConfig(cfg);
  let info: StreamInfo;
  try {
    info = await jsm.streams.info(cfg.name);
  } catch (err) {
    if (jsErrorCode(err) !== JS_ERR_STREAM_NOT_FOUND) throw err;
    try {
      return await jsm.streams.add(desired);
    } catch (addErr) {
      // Another process created it between our info and add: fall through and compare.
      if (jsErrorCode(addErr) !== JS_ERR_STREAM_NAME_IN_USE) throw addErr;
      info = await jsm.streams.info(cfg.name);
    }
  }
  const update = streamConfigUpdate(info.config, desired);
  return update ? jsm.streams.update(cfg.name, update) : info;
}
