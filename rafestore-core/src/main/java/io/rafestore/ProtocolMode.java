package io.rafestore;

/**
 * Which write protocol a client runs. All modes share the metadata format, the read path and the
 * safety guarantees; they differ in when phases start and so in latency and cost.
 */
public enum ProtocolMode {
  /**
   * The paper's anticipated protocol, faithfully: writeDo sends the value to the f+1 fastest data
   * clouds; readM starts on the first writeDo acknowledgement; when readM ends, writeDf adds data
   * clouds only if fewer than f+1 acknowledgements arrived; then writeM.
   */
  PAPER,
  /**
   * RafeStore's faster mode: readM starts together with writeDo instead of waiting for its first
   * reply, and a client that is the only trusted writer and already knows its own metadata log for
   * the key (it wrote or read the key before in this process) skips readM altogether. Same data
   * placement and writeDf rule as {@link #PAPER}.
   */
  FAST
}
