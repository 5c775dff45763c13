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
    let shown = dir.path().join(name).display().to_string();
    let schema = schema_of(columns);
    let batch = batch_of(&schema, columns, rows, &shown)?;
    let props = properties(&[("verdict.schema_version", version)]);
    let pq = |source| WriteError::Parquet {
        path: shown.clone(),
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

/// Rows per row group of a part: tens of thousands, so readers skip and
/// scan in useful pieces while the writer holds one group at a time.
pub const ROW_GROUP_ROWS: usize = 32_768;

fn schema_of(columns: &[(String, Kind)]) -> Arc<Schema> {
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
    Arc::new(Schema::new(fields))
}

fn properties(metadata: &[(&str, &str)]) -> WriterProperties {
    WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .set_key_value_metadata(Some(
            metadata
                .iter()
                .map(|(k, v)| KeyValue::new(k.to_string(), v.to_string()))
                .collect(),
        ))
        .build()
}

/// One record batch of `rows`.
fn batch_of<'a, I>(
    schema: &Arc<Schema>,
    columns: &[(String, Kind)],
    rows: I,
    shown: &str,
) -> Result<RecordBatch, WriteError>
where
    I: IntoIterator<Item = Vec<Cell<'a>>>,
{
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
    RecordBatch::try_new(schema.clone(), arrays).map_err(|source| WriteError::Arrow {
        path: shown.to_string(),
        source,
    })
}

/// A part written a batch at a time, under a temporary name (a dot file
/// readers skip) until [`PartWriter::finish`] flushes it and renames it into
/// place; dropped unfinished, it is removed. Memory: one row group.
#[derive(Debug)]
pub struct PartWriter<'d> {
    dir: &'d Dir,
    name: String,
    tmp: std::ffi::OsString,
    schema: Arc<Schema>,
    columns: Vec<(String, Kind)>,
    writer: Option<ArrowWriter<File>>,
    rows: u64,
}

impl<'d> PartWriter<'d> {
    /// Starts `name` in `dir`, with `metadata` (key, value) in the file.
    ///
    /// # Errors
    /// The folder cannot be written.
    pub fn create(
        dir: &'d Dir,
        name: &str,
        columns: &[(String, Kind)],
        metadata: &[(&str, &str)],
    ) -> Result<PartWriter<'d>, WriteError> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp: std::ffi::OsString = format!(".{name}.{}-{n}.tmp", std::process::id()).into();
        let file = dir.create_new(&tmp)?;
        let schema = schema_of(columns);
        let writer = ArrowWriter::try_new(file, schema.clone(), Some(properties(metadata)))
            .map_err(|source| WriteError::Parquet {
                path: dir.path().join(name).display().to_string(),
                source,
            })?;
        Ok(PartWriter {
            dir,
            name: name.to_string(),
            tmp,
            schema,
            columns: columns.to_vec(),
            writer: Some(writer),
            rows: 0,
        })
    }

    fn shown(&self) -> String {
        self.dir.path().join(&self.name).display().to_string()
    }

    /// Appends `rows`.
    ///
    /// # Errors
    /// The file system's refusal, or rows Arrow cannot hold.
    pub fn push<'a, I>(&mut self, rows: I) -> Result<(), WriteError>
    where
        I: IntoIterator<Item = Vec<Cell<'a>>>,
    {
        let shown = self.shown();
        let batch = batch_of(&self.schema, &self.columns, rows, &shown)?;
        self.rows += batch.num_rows() as u64;
        self.writer
            .as_mut()
            .expect("a part is written until finished")
            .write(&batch)
            .map_err(|source| WriteError::Parquet {
                path: shown,
                source,
            })
    }

    /// Rows so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Flushes the part to disk and renames it into place; returns its rows.
    ///
    /// # Errors
    /// The file system's refusal (the temporary file is then removed).
    pub fn finish(mut self) -> Result<u64, WriteError> {
        let shown = self.shown();
        let writer = self.writer.take().expect("finished once");
        let file = writer.into_inner().map_err(|source| WriteError::Parquet {
            path: shown,
            source,
        })?;
        file.sync_all()?;
        drop(file);
        self.dir.rename(&self.tmp, self.dir, &self.name)?;
        Ok(self.rows)
    }
}

impl Drop for PartWriter<'_> {
    fn drop(&mut self) {
        if self.writer.is_some() {
            let _ = self.dir.remove_file(&self.tmp);
        }
    }
}

/// The number of rows a Parquet file says it holds (read from its footer).
///
/// # Errors
/// Not a Parquet file, or a damaged one.
pub fn rows_in(file: File) -> Result<u64, parquet::errors::ParquetError> {
    let reader = SerializedFileReader::new(file)?;
    Ok(reader.metadata().file_metadata().num_rows().max(0) as u64)
}

/// The value of the key `key` in a Parquet file's metadata, if it has one
/// (which run wrote a part: `verdict.run`).
pub fn metadata_value(file: File, key: &str) -> Option<String> {
    let reader = SerializedFileReader::new(file).ok()?;
    reader
        .metadata()
        .file_metadata()
        .key_value_metadata()?
        .iter()
        .find(|kv| kv.key == key)?
        .value
        .clone()
}

/// The non-null values of the string column `name` of a Parquet file (the
/// game hashes of a part, for a resumed `--dedup` run).
///
/// # Errors
/// Not a Parquet file, or no such string column.
pub fn strings_in(file: File, name: &str) -> Result<Vec<String>, parquet::errors::ParquetError> {
    use arrow_array::{Array, StringArray};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use parquet::arrow::ProjectionMask;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)?;
    let index = builder
        .schema()
        .index_of(name)
        .map_err(|e| parquet::errors::ParquetError::General(e.to_string()))?;
    let mask = ProjectionMask::roots(builder.parquet_schema(), [index]);
    let mut out = Vec::new();
    for batch in builder.with_projection(mask).build()? {
        let batch = batch.map_err(|e| parquet::errors::ParquetError::General(e.to_string()))?;
        let col = batch
            .column(0)
            .as_any()
            .downcast_ref::<StringArray>()
            .ok_or_else(|| {
                parquet::errors::ParquetError::General(format!("{name} is not a string column"))
            })?;
        out.extend(
            (0..col.len())
                .filter(|&i| !col.is_null(i))
                .map(|i| col.value(i).to_string()),
        );
    }
    Ok(out)
}
