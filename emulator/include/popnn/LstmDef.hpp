#pragma once
// The units of a basic LSTM cell, each with its weights and bias.
enum BasicLstmCellUnit {
  BASIC_LSTM_CELL_FORGET_GATE = 0,
  BASIC_LSTM_CELL_INPUT_GATE = 1,
  BASIC_LSTM_CELL_CANDIDATE = 2,
  BASIC_LSTM_CELL_OUTPUT_GATE = 3,
  BASIC_LSTM_CELL_NUM_UNITS = 4
};
