#pragma once
// The units of a basic GRU cell, each with its weights and bias.
enum BasicGruCellUnit {
  BASIC_GRU_CELL_RESET_GATE = 0,
  BASIC_GRU_CELL_UPDATE_GATE = 1,
  BASIC_GRU_CELL_CANDIDATE = 2,
  BASIC_GRU_CELL_NUM_UNITS = 3
};
