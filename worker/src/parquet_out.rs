//! Rows to Parquet: one file per part, written under a temporary name and
//! renamed when complete, so a reader never sees half a file.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Float64Builder, Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;

use crate::row::{Cell, Kind};

/// Why a Parquet file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("cannot write {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot encode {path} as Parquet: {source}")]
    Parquet {
        path: String,
        source: parquet::errors::ParquetError,
    },
    #[error("cannot build the columns of {path}: {source}")]
    Arrow {
        path: String,
        source: arrow_schema::ArrowError,
    },
}

enum Builder {
    Str(StringBuilder),
    Int(Int64Builder),
    Float(Float64Builder),
    Bool(BooleanBuilder),
}

/// Writes `rows` (each a list of cells in `columns` order) to `path`, with
/// the schema version in the file's key-value metadata.
pub fn write_table<'a, I>(
    path: &Path,
    columns: &[(String, Kind)],
    rows: I,
    version: &str,
) -> Result<(), WriteError>
where
    I: IntoIterator<Item = Vec<Cell<'a>>>,
{
    let name = path.display().to_string();
    let fields: Vec<Field> = columns
        .iter()
        .map(|(n, k)| {
            let t = match k {
                Kind::Str => DataType::Utf8,
                Kind::Int => DataType::Int64,
                Kind::Float => DataType::Float64,
                Kind::Bool => DataType::Boolean,
            };
            Field::new(n, t, true)
        })
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let mut builders: Vec<Builder> = columns
        .iter()
        .map(|(_, k)| match k {
            Kind::Str => Builder::Str(StringBuilder::new()),
            Kind::Int => Builder::Int(Int64Builder::new()),
            Kind::Float => Builder::Float(Float64Builder::new()),
            Kind::Bool => Builder::Bool(BooleanBuilder::new()),
        })
        .collect();
    for row in rows {
        assert_eq!(row.len(), builders.len(), "a row has one cell per column");
        for (b, cell) in builders.iter_mut().zip(row) {
            match (b, cell) {
                (Builder::Str(b), Cell::Str(v)) => b.append_option(v),
                (Builder::Int(b), Cell::Int(v)) => b.append_option(v),
                (Builder::Float(b), Cell::Float(v)) => b.append_option(v),
                (Builder::Bool(b), Cell::Bool(v)) => b.append_option(v),
                _ => panic!("a cell's kind differs from its column's"),
            }
        }
    }
    let arrays: Vec<ArrayRef> = builders
        .into_iter()
        .map(|b| -> ArrayRef {
            match b {
                Builder::Str(mut b) => Arc::new(b.finish()),
                Builder::Int(mut b) => Arc::new(b.finish()),
                Builder::Float(mut b) => Arc::new(b.finish()),
                Builder::Bool(mut b) => Arc::new(b.finish()),
            }
        })
        .collect();
    let batch =
        RecordBatch::try_new(schema.clone(), arrays).map_err(|source| WriteError::Arrow {
            path: name.clone(),
            source,
        })?;
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_key_value_metadata(Some(vec![KeyValue::new(
            "verdict.schema_version".to_string(),
            version.to_string(),
        )]))
        .build();
    // A name of its own per writer: two workers re-running the same shard
    // (a lapsed lease) never write into one temporary file; the last rename
    // wins, and both wrote the same rows.
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = path.with_extension(format!("parquet.{}-{n}.tmp", std::process::id()));
    let io = |source| WriteError::Io {
        path: name.clone(),
        source,
    };
    let file = File::create(&tmp).map_err(io)?;
    let pq = |source| WriteError::Parquet {
        path: name.clone(),
        source,
    };
    let mut writer = ArrowWriter::try_new(file, schema, Some(props)).map_err(pq)?;
    writer.write(&batch).map_err(pq)?;
    writer.close().map_err(pq)?;
    std::fs::rename(&tmp, path).map_err(io)?;
    Ok(())
}
