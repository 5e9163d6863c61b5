// bench/parquet_peer.mjs - Apache Parquet as a peer of the trace format.
//
//   node bench/parquet_peer.mjs CSV WORKDIR [RUNS]
//
// CSV is a syscall table as `iotape dump --format csv` prints it (and
// format_bench -C writes it).  It is loaded into an in-memory DuckDB table
// with the column types of struct tape_syscall (format/tape.h), then written
// to Parquet with DuckDB's writer, one thread (SET threads = 1), with zstd at
// levels 1, 3 and 9, for both Parquet format versions DuckDB writes: V1 (its
// default: dictionary and plain pages) and V2 (delta and byte-stream-split
// encodings too).  Only the COPY is timed, best of RUNS (default 3): the rows
// are in memory on both sides, as they are when format_bench times the
// trace writer.
//
// Output: key=value lines on stdout for bench/run.sh, e.g.
//   parquet_v1_zstd9_bytes=123456
//   parquet_v1_zstd9_s=0.4321
// Exit 0, or 1 with one line on stderr.

import { DuckDBInstance } from '@duckdb/node-api';
import { statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

const [csv, work, runsArg] = process.argv.slice(2);
if (!csv || !work) {
	console.error('usage: node bench/parquet_peer.mjs CSV WORKDIR [RUNS]');
	process.exit(2);
}
const runs = Math.max(1, Number.parseInt(runsArg ?? '3', 10) || 1);

// SQL string literal
const lit = (s) => `'${s.replaceAll("'", "''")}'`;

try {
	const inst = await DuckDBInstance.create(':memory:');
	const c = await inst.connect();
	await c.run('SET threads = 1');
	await c.run('SET preserve_insertion_order = true');

	// Every column read as text, then cast: flags are hex ("0x80000"), and
	// the types are those the trace stores (u64, u32, i64).
	let t0 = process.hrtime.bigint();
	await c.run(`CREATE TABLE sc AS SELECT
		ts_ns::UBIGINT AS ts_ns, pid::UINTEGER AS pid, tid::UINTEGER AS tid,
		op, coalesce(path, '') AS path, fd::BIGINT AS fd,
		"offset"::UBIGINT AS "offset", size::UBIGINT AS size, ret::BIGINT AS ret,
		dur_ns::UBIGINT AS dur_ns, file_id::UBIGINT AS file_id,
		flags::UBIGINT AS flags, coalesce(path2, '') AS path2,
		fd2::BIGINT AS fd2, file_id2::UBIGINT AS file_id2, offset2::UBIGINT AS offset2
		FROM read_csv(${lit(csv)}, header = true, all_varchar = true)`);
	const loadS = Number(process.hrtime.bigint() - t0) / 1e9;
	const rows = (await c.runAndReadAll('SELECT count(*) FROM sc')).getRows()[0][0];
	const ver = (await c.runAndReadAll('SELECT version()')).getRows()[0][0];

	console.log(`duckdb=${ver}`);
	console.log(`rows=${rows}`);
	console.log(`load_s=${loadS.toFixed(4)}`);
	console.log(`runs=${runs}`);
	for (const pv of ['V1', 'V2']) {
		for (const level of [1, 3, 9]) {
			const out = join(work, `parquet_${pv}_${level}.parquet`);
			let best = Infinity;
			for (let i = 0; i < runs; i++) {
				t0 = process.hrtime.bigint();
				await c.run(`COPY sc TO ${lit(out)} (FORMAT parquet,
					COMPRESSION zstd, COMPRESSION_LEVEL ${level},
					PARQUET_VERSION ${pv})`);
				const s = Number(process.hrtime.bigint() - t0) / 1e9;
				best = Math.min(best, s);
			}
			// read back: the file holds every row
			const back = (await c.runAndReadAll(
				`SELECT count(*) FROM read_parquet(${lit(out)})`)).getRows()[0][0];
			if (back !== rows)
				throw new Error(`${out}: ${back} rows read back, ${rows} written`);
			const key = `parquet_${pv.toLowerCase()}_zstd${level}`;
			console.log(`${key}_bytes=${statSync(out).size}`);
			console.log(`${key}_s=${best.toFixed(4)}`);
			unlinkSync(out);
		}
	}
	c.closeSync();
} catch (e) {
	console.error(`parquet_peer: ${e.message.split('\n')[0]}`);
	process.exit(1);
}
