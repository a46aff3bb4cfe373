"""Document.info: the producer (§14.3.3) and whether the document is tagged (§14.7.1),
asked of extract by the pipeline instead of reading pikepdf itself."""

from __future__ import annotations

import pikepdf
from pdfbuilder import PdfBuilder

from ragprep.extract import DocumentInfo, open_document


def test_producer_and_tagged_come_from_the_info_dictionary_and_the_catalog():
    b = PdfBuilder()
    b.add_page("")
    b.pdf.docinfo["/Producer"] = "Acme Writer 3"
    b.pdf.Root.MarkInfo = pikepdf.Dictionary(Marked=True)
    with open_document(b.to_bytes()) as doc:
        assert doc.info == DocumentInfo(producer="Acme Writer 3", tagged=True)


def test_a_document_without_either_reads_as_untagged_with_no_producer():
    b = PdfBuilder()
    b.add_page("")
    with open_document(b.to_bytes()) as doc:
        assert doc.info == DocumentInfo(producer=None, tagged=False)


def test_a_structure_tree_without_mark_info_counts_as_tagged():
    b = PdfBuilder()
    page = b.add_page("")
    b.set_struct_tree([b.struct_element("P", [0], page=page)])
    del b.pdf.Root["/MarkInfo"]  # the builder marks it; this file only carries the tree
    with open_document(b.to_bytes()) as doc:
        assert doc.info.tagged is True
