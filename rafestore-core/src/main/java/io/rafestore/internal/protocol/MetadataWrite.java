package io.rafestore.internal.protocol;

import io.rafestore.CloudFault;
import io.rafestore.QuorumException;
import io.rafestore.internal.util.Futures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Phase writeM: store a signed log on all n clouds and complete with the ids of the first n - f
 * that acknowledged. A failed put never counts. More than f failures fail the phase.
 *
 * <p>Puts still running after the quorum are not useless (they bring the remaining clouds up to
 * date, and their request is already paid), so they may finish, but only for {@link #LINGER}: then
 * they are cancelled, so a cloud that hangs forever cannot pin resources.
 */
final class MetadataWrite {
  static final Duration LINGER = Duration.ofSeconds(30);

  private MetadataWrite() {}

  static CompletableFuture<List<String>> run(
      Context ctx, String key, String writer, byte[] bytes, String phase) {
    CompletableFuture<List<String>> result = new CompletableFuture<>();
    List<String> acks = new ArrayList<>();
    List<CloudFault> faults = new ArrayList<>();
    List<CompletableFuture<Void>> puts = new ArrayList<>();
    int quorum = ctx.settings.quorum();
    int tolerated = ctx.settings.n() - quorum;
    for (Cloud cloud : ctx.clouds) {
      CompletableFuture<Void> put =
          cloud.driver().put(io.rafestore.internal.util.Names.metadataObject(key, writer), bytes);
      puts.add(put);
      put.whenComplete(
          (r, e) -> {
            CloudFault fault = null;
            List<String> done = null;
            QuorumException failure = null;
            synchronized (acks) {
              if (e == null) {
                acks.add(cloud.id());
                if (acks.size() == quorum) {
                  done = List.copyOf(acks);
                }
              } else if (!Futures.isCancellation(e)) {
                fault =
                    new CloudFault(
                        cloud.id(),
                        CloudFault.Kind.ERROR,
                        phase + ": " + Futures.unwrap(e).getMessage());
                faults.add(fault);
                if (faults.size() == tolerated + 1) {
                  failure =
                      new QuorumException(phase + " of '" + key + "'", quorum, acks.size(), faults);
                }
              }
            }
            if (fault != null) {
              ctx.report(key, fault);
            }
            if (done != null) {
              result.complete(done);
            } else if (failure != null) {
              result.completeExceptionally(failure);
            }
          });
    }
    result.whenComplete(
        (r, e) ->
            ctx.settings
                .scheduler()
                .schedule(
                    LINGER,
                    () -> {
                      for (CompletableFuture<Void> p : puts) {
                        p.cancel(true);
                      }
                    }));
    return result;
  }
}
