"""Type stubs of the ``ordo`` package (the application functions are made at
import time from the library's registry; these are the ones it has now)."""

from typing import Any, Dict, List, Literal, Optional, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

from ._ordo import Graph as Graph
from ._ordo import GraphFormatError as GraphFormatError
from ._ordo import __version__ as __version__
from ._ordo import generate as generate

APPS: List[str]

_F64 = npt.NDArray[np.float64]
_Stats = Dict[str, Any]

@overload
def sssp(g: Graph, source: Optional[int] = None, classify: bool = False, *, scheduler: Optional[str] = None, threads: Optional[int] = None, stats: Literal[False] = False, verify: bool = False, cycles: bool = False) -> _F64: ...
@overload
def sssp(g: Graph, source: Optional[int] = None, classify: bool = False, *, scheduler: Optional[str] = None, threads: Optional[int] = None, stats: Literal[True], verify: bool = False, cycles: bool = False) -> Tuple[_F64, _Stats]: ...
@overload
def bfs(g: Graph, source: Optional[int] = None, classify: bool = False, *, scheduler: Optional[str] = None, threads: Optional[int] = None, stats: Literal[False] = False, verify: bool = False, cycles: bool = False) -> _F64: ...
@overload
def bfs(g: Graph, source: Optional[int] = None, classify: bool = False, *, scheduler: Optional[str] = None, threads: Optional[int] = None, stats: Literal[True], verify: bool = False, cycles: bool = False) -> Tuple[_F64, _Stats]: ...
@overload
def astar(g: Graph, source: Optional[int] = None, target: Optional[int] = None, classify: bool = False, *, scheduler: Optional[str] = None, threads: Optional[int] = None, stats: Literal[False] = False, verify: bool = False, cycles: bool = False) -> Tuple[npt.NDArray[np.int64], float]: ...
@overload
def astar(g: Graph, source: Optional[int] = None, target: Optional[int] = None, classify: bool = False, *, scheduler: Optional[str] = None, threads: Optional[int] = None, stats: Literal[True], verify: bool = False, cycles: bool = False) -> Tuple[Tuple[npt.NDArray[np.int64], float], _Stats]: ...
@overload
def pagerank(g: Graph, alpha: Optional[float] = None, tolerance: Optional[float] = None, *, scheduler: Optional[str] = None, threads: Optional[int] = None, stats: Literal[False] = False, verify: bool = False, cycles: bool = False) -> _F64: ...
@overload
def pagerank(g: Graph, alpha: Optional[float] = None, tolerance: Optional[float] = None, *, scheduler: Optional[str] = None, threads: Optional[int] = None, stats: Literal[True], verify: bool = False, cycles: bool = False) -> Tuple[_F64, _Stats]: ...
@overload
def pagerank_d(g: Graph, alpha: Optional[float] = None, tolerance: Optional[float] = None, *, scheduler: Optional[str] = None, threads: Optional[int] = None, stats: Literal[False] = False, verify: bool = False, cycles: bool = False) -> _F64: ...
@overload
def pagerank_d(g: Graph, alpha: Optional[float] = None, tolerance: Optional[float] = None, *, scheduler: Optional[str] = None, threads: Optional[int] = None, stats: Literal[True], verify: bool = False, cycles: bool = False) -> Tuple[_F64, _Stats]: ...
@overload
def mst(g: Graph, *, scheduler: Optional[str] = None, threads: Optional[int] = None, stats: Literal[False] = False, verify: bool = False, cycles: bool = False) -> npt.NDArray[np.int64]: ...
@overload
def mst(g: Graph, *, scheduler: Optional[str] = None, threads: Optional[int] = None, stats: Literal[True], verify: bool = False, cycles: bool = False) -> Tuple[npt.NDArray[np.int64], _Stats]: ...
