"""CJK / Thai keyword search (engine/retrieval/cjk.py): trigram table size, query time, indexing cost.

    python bench/bench_cjk.py --root <100k root> --chunks 100000

Builds the demo root (engine.demo) with ``--chunks`` chunks, adds Telegram logs of Japanese,
Chinese, Thai and Korean messages (``--cjk-share`` of the chunks, 10 messages a window) and
indexes it with a stub embedder (vectors are not what is measured). Prints one JSON line each:
sizes (dbstat), the added indexing cost (the trigram table rebuilt from chunks, per chunk),
and cjk_search time per query kind (CPU time of the thread: the machine may be shared; wall time
is printed beside it).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
from common import machine, percentiles

from engine.config import load_config
from engine.demo import generate_demo_root
from engine.embedder import Embedder
from engine.indexer import reindex
from engine.retrieval.cjk import SCORE_BUDGET, _term, cjk_search, cjk_terms
from engine.schema import ensure_schema
from engine.schema_migrations import backfill_cjk
from engine.storage.db import connect, transaction

RARE = ["紅葉の季節に嵐山を散歩したい", "我们下周去北京看长城记得带护照", "ประชุมพรุ่งนี้บ่ายสามโมง"]
WORDS = {
    "ja": "明日 会議 午後 三時 資料 共有 フォルダ 東京 出張 予約 新幹線 ホテル 確認 お願い します "
          "です ました 来週 先週 企画 提案 締め切り 部長 連絡 電話 メール 返事 天気 雨 桜 "
          "の は が を に で と から まで".split(),
    "zh": "我们 下周 北京 长城 护照 相机 会议 下午 三点 资料 上海 出差 酒店 预订 高铁 确认 "
          "麻烦 你 他 她 明天 昨天 项目 方案 截止 经理 联系 电话 邮件 回复 天气 下雨 "
          "的 了 在 是 去 看 和 吗".split(),
    "th": "ประชุม พรุ่งนี้ บ่าย สาม โมง เรา จะ ไป เชียงใหม่ เดือน หน้า เอกสาร กรุงเทพ โรงแรม "
          "จอง รถไฟ ยืนยัน ขอบคุณ ครับ ค่ะ โทร อีเมล ตอบ ฝน ตก วันนี้ เมื่อวาน โครงการ".split(),
    "ko": "내일 회의는 오후 세 시입니다 자료 공유 폴더 서울 출장 예약 호텔 확인 부탁 "
          "드립니다 다음 주 지난 기획 제안 마감 부장님 연락 전화 메일 답장 날씨 비".split(),
}
SEPARATOR = {"ja": "", "zh": "", "th": "", "ko": " "}
PEOPLE = ["Yuki Tanaka", "Li Wei", "Somchai P.", "Minji Kim", "Maya Chen"]
QUERIES = ["会", "雨", "会議", "北京", "出差", "ไป", "회의", "新幹線", "午後三時", "长城", "เชียงใหม่",
           "시입니다", "嵐山", "嵐山を散歩", "บ่ายสามโมง", "会議 北京 พรุ่งนี้", "東京タワー", "火星"]


class StubEmbedder(Embedder):
    provider, model, dim = "bench-stub", "constant", 8

    def embed(self, texts):
        vectors = np.zeros((len(texts), self.dim), np.float32)
        vectors[:, 0] = 1.0
        return vectors


def add_cjk_logs(root: Path, windows: int, seed: int = 11) -> int:
    """Telegram logs with ``windows`` windows of Japanese, Chinese, Thai and Korean messages."""
    rng = random.Random(seed)
    folder = root / "data/telegram"
    folder.mkdir(parents=True, exist_ok=True)
    t0 = datetime(2026, 1, 1, 8, 0, tzinfo=timezone(timedelta(hours=9)))
    per_file, written = 1000, 0  # windows a file
    for n in range(0, windows, per_file):
        path = folder / f"cjk-bench-{n // per_file:03d}.jsonl"
        lines = []
        for i in range(min(per_file, windows - n) * 10):
            lang = rng.choice(list(WORDS))
            text = SEPARATOR[lang].join(rng.choices(WORDS[lang], k=rng.randint(4, 12)))
            if i % 5000 == 17:  # a few windows hold a rarer sentence
                text = RARE[(n // per_file + i // 5000) % len(RARE)]
            lines.append(json.dumps({"date": (t0 + timedelta(minutes=9 * (n * 10 + i))).isoformat(),
                                     "from": rng.choice(PEOPLE), "text": text},
                                    ensure_ascii=False))
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        written += len(lines) // 10
    return written


def sizes(conn) -> dict:
    rows = conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall()
    by = {name: size for name, size in rows}

    def mb(prefix: str) -> float:
        return round(sum(s for n, s in by.items() if n.startswith(prefix)) / 2**20, 2)

    cjk_rows = conn.execute("SELECT count(*) FROM chunks_cjk").fetchone()[0]
    return {"bench": "size", "chunks": conn.execute("SELECT count(*) FROM chunks").fetchone()[0],
            "cjk_chunks": cjk_rows, "db_mb": round(sum(by.values()) / 2**20, 1),
            "chunks_cjk_mb": mb("chunks_cjk"), "chunks_fts_mb": mb("chunks_fts"),
            "chunks_cjk_bytes_per_cjk_chunk": round(mb("chunks_cjk") * 2**20 / max(cjk_rows, 1)),
            "chunks_date_index_mb": mb("chunks_date")}


def indexing_cost(conn) -> dict:
    """The CJK share of indexing: the predicate over every chunk plus the trigram inserts."""
    n = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    t = time.thread_time()
    conn.execute("SELECT count(*) FROM chunks WHERE memlens_unsegmented(content)").fetchone()
    predicate_s = time.thread_time() - t
    t = time.thread_time()
    conn.execute("SELECT count(*) FROM chunks").fetchone()  # the scan alone, to subtract
    scan_s = time.thread_time() - t
    with transaction(conn):
        conn.execute("DELETE FROM chunks_cjk")
    t = time.thread_time()
    with transaction(conn):
        inserted = backfill_cjk(conn)
    backfill_s = time.thread_time() - t
    with transaction(conn):  # merge the segments the rebuild left, as a first build has them
        conn.execute("INSERT INTO chunks_cjk(chunks_cjk) VALUES ('optimize')")
    return {"bench": "indexing", "chunks": n, "cjk_chunks": inserted,
            "backfill_s": round(backfill_s, 2),
            "added_us_per_chunk": round(backfill_s / n * 1e6, 1),
            "predicate_us_per_chunk": round((predicate_s - scan_s) / n * 1e6, 1),
            "trigram_insert_us_per_cjk_chunk":
                round((backfill_s - predicate_s) / max(inserted, 1) * 1e6, 1)}


def query_times(conn, repeats: int) -> list[dict]:
    """Per query: how its runs are looked up, how many chunks hold them, time at depth 50."""
    out = []
    for q in QUERIES:
        terms = cjk_terms(q)
        found = [_term(conn, term) for term in terms]
        paths = ["none" if t is None else "scan" if t[0].startswith("instr") else
                 "trigram" if len(term) >= 3 else "trigram vocabulary"
                 for term, t in zip(terms, found, strict=True)]
        holding = [0 if t is None else t[2] for t in found]
        wall, cpu = [], []
        for _ in range(repeats):
            t, c = time.perf_counter(), time.thread_time()
            cjk_search(conn, q, 50)
            cpu.append((time.thread_time() - c) * 1000)
            wall.append((time.perf_counter() - t) * 1000)
        c = time.thread_time()
        cjk_search(conn, q, 50, "c.source_type IN (?) AND c.content_date >= ?",
                   ["telegram", "2026-06-01"])
        filtered = (time.thread_time() - c) * 1000
        stats = percentiles(cpu)
        out.append({"bench": "query", "query": q, "paths": paths, "chunks_holding": holding,
                    "scored_per_term": SCORE_BUDGET,
                    "cpu_ms_p50": stats["p50"], "cpu_ms_p95": stats["p95"],
                    "wall_ms_p50": percentiles(wall)["p50"],
                    "filtered_cpu_ms": round(filtered, 2)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True, type=Path)
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--cjk-share", type=float, default=0.05)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    print(json.dumps({"machine": machine()}), flush=True)
    t = time.perf_counter()
    generate_demo_root(args.root, chunks=args.chunks)
    windows = add_cjk_logs(args.root, round(args.chunks * args.cjk_share))
    generated_s = time.perf_counter() - t
    config = load_config(args.root)
    t = time.perf_counter()
    stats = reindex(config=config, embedder=StubEmbedder())
    print(json.dumps({"bench": "build", "generate_s": round(generated_s, 1),
                      "cjk_windows": windows, "index_s": round(time.perf_counter() - t, 1),
                      "chunks_written": stats.chunks, "errors": len(stats.errors)}), flush=True)
    conn = connect(config.db_path)
    try:
        ensure_schema(conn)  # a no-op on a current index; defines memlens_unsegmented
        print(json.dumps(sizes(conn)), flush=True)
        print(json.dumps(indexing_cost(conn)), flush=True)
        for line in query_times(conn, args.repeats):
            print(json.dumps(line, ensure_ascii=False), flush=True)
    finally:
        conn.close()


if __name__ == "__main__":
    main()
