//! Rows to Parquet: one file per part, written whole or not at all into a
//! folder opened by handle ([`Dir::write_atomic`]), so a reader never sees
//! half a file and a symbolic link in its place is replaced, not followed.

use std::fs::File;
use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Float64Builder, Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};

use crate::confined::Dir;
use crate::row::{Cell, Kind};

/// Why a Parquet file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error(transparent)]
    Io(#[from] std::io::Error),
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

/// Writes `rows` (each a list of cells in `columns` order) as `name` in
/// `dir`, with the schema version in the file's key-value metadata, and
/// returns how many rows it wrote.
///
/// # Errors
/// The file system's refusal, or rows Arrow cannot hold.
pub fn write_table<'a, I>(
    dir: &Dir,
    name: &str,
    columns: &[(String, Kind)],
    rows: I,
    version: &str,
) -> Result<u64, WriteError>
where
    I: IntoIterator<Item = Vec<Cell<'a>>>,
{
    write_table_into(dir, dir, name, columns, rows, version)
}

/// [`write_table`] through a temporary file in `tmp`, renamed into `dir`.
///
/// # Errors
/// As [`write_table`].
pub fn write_table_into<'a, I>(
    tmp: &Dir,
    dir: &Dir,
    name: &str,
    columns: &[(String, Kind)],
    rows: I,
    version: &str,
) -> Result<u64, WriteError>
where
    I: IntoIterator<Item = Vec<Cell<'a>>>,
{
    let name_shown = dir.path().join(name).display().to_string();
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
            path: name_shown.clone(),
            source,
        })?;
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_key_value_metadata(Some(vec![KeyValue::new(
            "verdict.schema_version".to_string(),
            version.to_string(),
        )]))
        .build();
    let pq = |source| WriteError::Parquet {
        path: name_shown.clone(),
        source,
    };
    let rows = batch.num_rows() as u64;
    tmp.write_atomic_into(dir, name, |file: File| {
        let mut writer = ArrowWriter::try_new(file, schema, Some(props)).map_err(pq)?;
        writer.write(&batch).map_err(pq)?;
        let file = writer.into_inner().map_err(pq)?;
        Ok((rows, file))
    })
}

/// The number of rows a Parquet file says it holds (read from its footer).
///
/// # Errors
/// Not a Parquet file, or a damaged one.
pub fn rows_in(file: File) -> Result<u64, parquet::errors::ParquetError> {
    let reader = SerializedFileReader::new(file)?;
    Ok(reader.metadata().file_metadata().num_rows().max(0) as u64)
}
