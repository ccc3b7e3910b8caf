package io.rafestore;

/**
 * A phase of a read or a write, in the paper's words: what {@link PhaseTiming} times and {@link
 * RafeStoreListener#phaseCompleted} reports.
 */
public enum Phase {
  /** A write sends the value to f+1 data clouds (until the data quorum is held). */
  WRITE_DO("writeDo"),
  /** Reading the writers' signed logs from a quorum of clouds (a write's and a read's). */
  READ_M("readM"),
  /** The crucial check failed: the write sends the value to more data clouds. */
  WRITE_DF("writeDf"),
  /** The extended, signed log is stored on n - f clouds. */
  WRITE_M("writeM"),
  /** A read fetches and checks the value's bytes from the clouds the signed entry names. */
  DATA_FETCH("dataFetch");

  private final String paperName;

  Phase(String paperName) {
    this.paperName = paperName;
  }

  /** The phase's name as the paper writes it ({@code writeDo}, {@code readM}, ...). */
  public String paperName() {
    return paperName;
  }
}
