"""Type stubs of the extension module ``ordo._ordo`` (re-exported by ``ordo``)."""

from os import PathLike
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

_Path = Union[str, PathLike[str]]
_Ints = npt.ArrayLike
_Coords = npt.ArrayLike  # (n, 2) numbers

class GraphFormatError(ValueError):
    """A graph file is malformed; the message is the one ``ordo`` prints
    (file, line or byte offset, problem)."""

class Graph:
    """A directed graph in CSR form, immutable."""

    @staticmethod
    def from_file(
        path: _Path,
        weights: Optional[str] = None,
        symmetrize: bool = False,
        *,
        format: Optional[str] = None,
        coords: Optional[_Path] = None,
        remap: bool = False,
        simplify: bool = False,
        huge_pages: bool = False,
    ) -> Graph: ...
    @staticmethod
    def from_scipy(
        m: Any,
        weights: Optional[str] = None,
        symmetrize: bool = False,
        coords: Optional[_Coords] = None,
    ) -> Graph: ...
    @staticmethod
    def from_edges(
        src: _Ints,
        dst: _Ints,
        weight: Optional[npt.ArrayLike] = None,
        n: Optional[int] = None,
        symmetrize: bool = False,
        coords: Optional[_Coords] = None,
    ) -> Graph: ...
    @staticmethod
    def from_csr(
        indptr: _Ints,
        indices: _Ints,
        weights: Optional[npt.ArrayLike] = None,
        coords: Optional[_Coords] = None,
    ) -> Graph: ...
    @staticmethod
    def from_networkx(G: Any, weight: Optional[str] = "weight") -> Graph: ...
    def to_networkx(self) -> Any: ...
    @property
    def nodes(self) -> Optional[List[Any]]: ...
    def node_index(self, node: Any) -> int: ...
    @property
    def n(self) -> int: ...
    @property
    def m(self) -> int: ...
    @property
    def weighted(self) -> bool: ...
    @property
    def has_coords(self) -> bool: ...
    @property
    def name(self) -> str: ...
    @property
    def memory_bytes(self) -> int: ...
    def huge_page_bytes(self) -> Optional[int]: ...
    @property
    def offsets(self) -> npt.NDArray[np.uint64]: ...
    @property
    def targets(self) -> npt.NDArray[np.uint32]: ...
    @property
    def weights(self) -> Optional[npt.NDArray[np.uint32]]: ...
    @property
    def coords(self) -> Optional[npt.NDArray[np.float64]]: ...
    def degrees(self) -> npt.NDArray[np.int64]: ...
    def edges(
        self,
    ) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.uint32]]: ...
    def to_scipy(self, copy: bool = False) -> Any: ...
    def symmetrized(self) -> Graph: ...
    def deduplicated(self) -> Graph: ...
    def with_weights(self, rule: str) -> Graph: ...
    def save(self, path: _Path, format: Optional[str] = None) -> List[str]: ...

def generate(
    spec: str,
    weights: Optional[str] = None,
    symmetrize: bool = False,
    threads: Optional[int] = None,
    *,
    huge_pages: bool = False,
) -> Graph: ...

CANCELLED_NOTE: str

def apps() -> List[Dict[str, Any]]: ...
def run_app(
    app: str,
    g: Graph,
    params: Dict[str, Any],
    scheduler: Optional[str] = None,
    threads: Optional[int] = None,
    stats: bool = False,
    verify: bool = False,
    cycles: bool = False,
) -> Any: ...
