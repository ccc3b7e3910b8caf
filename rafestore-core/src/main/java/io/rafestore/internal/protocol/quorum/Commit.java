package io.rafestore.internal.protocol.quorum;

import io.rafestore.Phase;
import io.rafestore.VersionInfo;
import io.rafestore.WriteReceipt;
import io.rafestore.internal.observe.OpTrace;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.layout.KeyShares;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.Logs;
import io.rafestore.internal.protocol.metadata.MetadataLog;
import io.rafestore.internal.protocol.metadata.View;
import io.rafestore.spi.support.Futures;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** writeM, shared by every write protocol: append the entry to our log, sign, store on n - f. */
public final class Commit {
  private Commit() {}

  public static CompletableFuture<WriteReceipt> run(
      Context ctx,
      String key,
      View view,
      LogEntry entry,
      List<String> dataCloudsContacted,
      boolean writeDfUsed,
      boolean readMSkipped,
      OpTrace trace) {
    return run(
        ctx,
        key,
        view,
        entry,
        null,
        dataCloudsContacted,
        writeDfUsed,
        readMSkipped,
        trace,
        java.util.Optional.empty());
  }

  /**
   * As above; {@code sealed} is the sealed value's key shares when {@code entry} is sealed (the
   * confidentiality option), else null. Each cloud then gets its own envelope with its shares.
   * {@code choice} is the layout chooser's decision for the receipt, empty for a fixed layout.
   */
  public static CompletableFuture<WriteReceipt> run(
      Context ctx,
      String key,
      View view,
      LogEntry entry,
      KeyShares.Sealed sealed,
      List<String> dataCloudsContacted,
      boolean writeDfUsed,
      boolean readMSkipped,
      OpTrace trace,
      java.util.Optional<io.rafestore.LayoutChoice> choice) {
    trace.begin(Phase.WRITE_M);
    String writer = ctx.settings.writerId();
    MetadataLog next = Logs.append(view.logOf(writer), view, entry, ctx.incarnation());
    // The entry as signed: stamped with this client's incarnation, last in the new log.
    LogEntry signed = next.entries().get(next.entries().size() - 1);
    CompletableFuture<WriteReceipt> result = new CompletableFuture<>();
    // Signed alone at once if the client's signer is idle, else with the logs of other writes
    // that wait for it (one signature for all: BatchSigner).
    Futures.onEnd(
        ctx.signer
            .sign(next)
            .thenCompose(
                bytes -> {
                  // Reading this log back (readM of our own log) need not check our signature.
                  ctx.codec.rememberSigned(bytes, next, ctx.settings.writerKeys().getPublic());
                  return throughGate(ctx, key, next, List.of(signed), bytes)
                      .thenCompose(
                          x -> {
                            java.util.function.Function<Cloud, byte[]> payloads =
                                KeyShares.payloads(ctx, view, next, bytes, sealed);
                            return QuorumPut.metadata(ctx, key, writer, payloads, "writeM");
                          });
                }),
        (acks, e) -> {
          trace.end(Phase.WRITE_M);
          if (e != null) {
            result.completeExceptionally(Futures.unwrap(e));
            return;
          }
          if (sealed != null) {
            KeyShares.remember(ctx, signed, sealed.shares());
          }
          VersionInfo info = signed.info(key, writer);
          // The read tier knows this client's own completed version (its bytes, if the
          // caller gave them, are cached by Client.write against this very entry).
          ctx.readTier.remember(key, new View.Item(info.version(), signed));
          WriteReceipt receipt =
              new WriteReceipt(
                  info,
                  dataCloudsContacted,
                  writeDfUsed,
                  acks,
                  readMSkipped,
                  trace.elapsed(),
                  ctx.f(),
                  trace.phases(),
                  choice);
          // Reported before the caller sees the receipt, so a caller that reads its
          // listener's figures after the write finds the write in them.
          ctx.observer.writeCompleted(trace, receipt);
          result.complete(receipt);
        });
    return result;
  }

  /**
   * Passes {@code next} (signed as {@code bytes}, its new entries {@code entries}) through the
   * commit gate, then remembers it as this client's own log (whether or not writeM reaches its
   * quorum: {@link Context#rememberOwnLog}). The write-back journal records the signed entries
   * before any cloud may receive them; the gate is open for every other client. If the gate fails,
   * nothing was sent and nothing is remembered, but the commit record may have reached the
   * journal's disk (a failed fsync) and the next client would then redo its entries: this client
   * renews its incarnation, so it never signs another log of this sequence nor another entry of
   * these versions.
   */
  private static CompletableFuture<Void> throughGate(
      Context ctx, String key, MetadataLog next, List<LogEntry> entries, byte[] bytes) {
    CompletableFuture<Void> gate = ctx.commitGate().beforePut(key, next, entries, bytes);
    Futures.onEnd(
        gate,
        (x, e) -> {
          if (e != null) {
            ctx.renewIncarnation();
          }
        });
    return gate.thenRun(() -> ctx.rememberOwnLog(next));
  }

  /** One write of a group commit: its entry (not yet stamped), key shares, trace and choice. */
  public record Member(
      LogEntry entry,
      KeyShares.Sealed sealed,
      OpTrace trace,
      java.util.Optional<io.rafestore.LayoutChoice> choice) {}

  /**
   * writeM of a group commit: one log carrying every member's entry ({@link Logs#appendAll}: one
   * sequence, the entries in the members' order), signed once, remembered before its puts as every
   * log this client signs ({@link Context#rememberOwnLog}: a failed round's log is built on by the
   * next, never forked), put to all n clouds (or as {@link Context#logPlan} says under the cost
   * objective), n - f acknowledgements. Completes with one receipt per member, in order, each with
   * its own version, trace and phases; fails, for every member, with the round's failure.
   */
  public static CompletableFuture<List<WriteReceipt>> group(
      Context ctx,
      String key,
      View view,
      List<Member> members,
      List<String> dataCloudsContacted,
      boolean readMSkipped) {
    return group(ctx, key, view, members, dataCloudsContacted, readMSkipped, Map.of());
  }

  /**
   * As {@link #group(Context, String, View, List, List, boolean)}, each appended entry whose packed
   * form {@code packed} holds (by id, as stamped: {@link Logs#replace}) signed in that form: a
   * write-back bulk round whose values were packed, and the pack acknowledged by f+1 data clouds,
   * before this writeM (anticipated as writeDo is).
   */
  public static CompletableFuture<List<WriteReceipt>> group(
      Context ctx,
      String key,
      View view,
      List<Member> members,
      List<String> dataCloudsContacted,
      boolean readMSkipped,
      Map<LogEntry.Id, LogEntry> packed) {
    for (Member m : members) {
      m.trace().begin(Phase.WRITE_M);
    }
    String writer = ctx.settings.writerId();
    List<LogEntry> entries = new java.util.ArrayList<>(members.size());
    for (Member m : members) {
      entries.add(m.entry());
    }
    MetadataLog next =
        Logs.replace(Logs.appendAll(view.logOf(writer), view, entries, ctx.incarnation()), packed);
    // The entries as signed: stamped with this client's incarnation, the last ones of the log.
    List<LogEntry> all = next.entries();
    List<LogEntry> signed = all.subList(all.size() - members.size(), all.size());
    // Every member's key shares but the last go into the client's memory first, where the envelope
    // of each cloud finds them as it finds those of older sealed entries; the last is passed on.
    KeyShares.Sealed last = null;
    for (int i = 0; i < members.size(); i++) {
      KeyShares.Sealed s = members.get(i).sealed();
      if (s != null) {
        KeyShares.remember(ctx, signed.get(i), s.shares());
        last = s;
      }
    }
    KeyShares.Sealed fresh = last;
    String phase =
        members.size() == 1 ? "writeM" : "writeM (group commit of " + members.size() + " writes)";
    CompletableFuture<List<WriteReceipt>> result = new CompletableFuture<>();
    Futures.onEnd(
        ctx.signer
            .sign(next)
            .thenCompose(
                bytes -> {
                  ctx.codec.rememberSigned(bytes, next, ctx.settings.writerKeys().getPublic());
                  java.util.function.Function<Cloud, byte[]> payloads =
                      KeyShares.payloads(ctx, view, next, bytes, fresh);
                  return throughGate(ctx, key, next, signed, bytes)
                      .thenCompose(x -> QuorumPut.metadata(ctx, key, writer, payloads, phase));
                }),
        (acks, e) -> {
          for (Member m : members) {
            m.trace().end(Phase.WRITE_M);
          }
          if (e != null) {
            result.completeExceptionally(Futures.unwrap(e));
            return;
          }
          List<WriteReceipt> receipts = new java.util.ArrayList<>(members.size());
          for (int i = 0; i < members.size(); i++) {
            Member m = members.get(i);
            LogEntry entry = signed.get(i);
            VersionInfo info = entry.info(key, writer);
            ctx.readTier.remember(key, new View.Item(info.version(), entry));
            WriteReceipt receipt =
                new WriteReceipt(
                    info,
                    dataCloudsContacted,
                    false,
                    acks,
                    readMSkipped,
                    m.trace().elapsed(),
                    ctx.f(),
                    m.trace().phases(),
                    m.choice());
            ctx.observer.writeCompleted(m.trace(), receipt);
            receipts.add(receipt);
          }
          result.complete(receipts);
        });
    return result;
  }
}
